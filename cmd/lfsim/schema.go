package main

import (
	"fmt"
	"io"

	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sweep"
)

// schemaCmd is `lfsim schema [scenario|sweep]`: the format's JSON
// Schema, for editors (yaml-language-server) and other tools.
func schemaCmd(args []string, stdout, stderr io.Writer) int {
	which := "scenario"
	if len(args) > 0 {
		which = args[0]
	}
	if len(args) > 1 || (which != "scenario" && which != "sweep") {
		fmt.Fprintf(stderr, "lfsim schema takes scenario (the default) or sweep\n")
		return exitUsage
	}
	if which == "sweep" {
		_, _ = stdout.Write(sweep.JSONSchema())
		return exitOK
	}
	_, _ = stdout.Write(scenario.JSONSchema())
	return exitOK
}
