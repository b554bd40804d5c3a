package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/lfsim/lfsim/scenario"
	"github.com/lfsim/lfsim/sonic"
)

// sonicCmd is `lfsim sonic FILE [--port NAME]`: a SONiC config_db.json's
// QoS and buffer settings as the switch: block of a scenario, the keys
// switch: {sonic: FILE} lays over the defaults (package sonic), with its
// warnings as comments and on stderr; errors at FILE:line:column.
func sonicCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("sonic", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.String("port", "", "read this port's settings (such as Ethernet0), where the file's ports differ")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "lfsim sonic takes one SONiC config_db.json (and --port NAME to read one port's settings)")
		return exitUsage
	}
	file := fs.Arg(0)
	// A file on disk only: a missing one is not replaced by the
	// library's of the same name (a built-in example's, which a run of
	// the example copies into its folder).
	data, err := scenario.ReadFile(file, "SONiC configuration", scenario.MaxSONiCBytes)
	if err != nil {
		fmt.Fprintf(stderr, "lfsim sonic: cannot read %s: %v\n", scenario.Show(file), err)
		return exitFailed
	}
	res := sonic.Read(file, data, *port)
	if err := res.Err(); err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w.Format(file))
	}
	fmt.Fprint(stdout, sonic.Text(res))
	return exitOK
}
