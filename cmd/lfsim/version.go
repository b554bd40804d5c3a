package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// versionCmd is `lfsim version` (and `lfsim --version`): what the binary
// was built from, as the Go toolchain stamped it (runtime/debug's build
// information): the module's version, the commit and whether the tree
// had uncommitted changes, and the Go release and platform.
func versionCmd(stdout io.Writer) int {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	fmt.Fprint(stdout, versionText(bi, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH))
	return exitOK
}

// versionText renders bi (nil: a binary built without module support)
// in three lines: "lfsim VERSION", the VCS revision with its time and a
// note of uncommitted changes (vcs.modified), and "built with GO on
// PLATFORM". A build from a checkout has the pseudo-version the Go
// toolchain derives from the commit (v0.0.0-DATE-REV, +dirty when
// modified); `go run` and a test binary have "(devel)" and no revision.
func versionText(bi *debug.BuildInfo, goVersion, platform string) string {
	var b strings.Builder
	version := "(unknown)"
	if bi != nil && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	fmt.Fprintf(&b, "lfsim %s\n", version)
	var rev, at, modified string
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	switch {
	case rev == "":
		b.WriteString("revision unknown (not built from a git checkout with go build)\n")
	default:
		fmt.Fprintf(&b, "revision %s", rev)
		if at != "" {
			fmt.Fprintf(&b, " (%s)", at)
		}
		switch modified {
		case "true":
			b.WriteString(", with uncommitted changes")
		case "false":
			b.WriteString(", clean")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "built with %s on %s\n", goVersion, platform)
	return b.String()
}
