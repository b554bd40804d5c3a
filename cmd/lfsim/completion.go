package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/lfsim/lfsim/reproduce"
	"github.com/lfsim/lfsim/scenarios"
)

// commands are lfsim's subcommands, as completion offers them.
var commands = []string{"run", "validate", "list", "lab", "report", "sweep", "bench", "reproduce", "help", "completion", "schema", "devinfo", "devices", "ibsim", "ns3", "version", "sonic"}

// completionCmd is `lfsim completion bash|zsh|fish`: a script that has the
// shell ask lfsim itself (`lfsim __complete WORDS... -- CURRENT`) what
// may come next, so that the candidates never drift from the binary: its
// subcommands, each one's flags (read from its own --help), the embedded
// examples and lab scenarios, the labs, the suite's scenarios; where
// nothing fits, the shell completes file names.
func completionCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "lfsim completion takes one shell: bash, zsh or fish\n")
		return exitUsage
	}
	switch args[0] {
	case "bash":
		fmt.Fprint(stdout, bashCompletion)
	case "zsh":
		fmt.Fprint(stdout, "autoload -U +X bashcompinit && bashcompinit\n"+bashCompletion)
	case "fish":
		fmt.Fprint(stdout, fishCompletion)
	default:
		fmt.Fprintf(stderr, "lfsim completion: no completion for %q%s; shells are bash, zsh and fish\n", args[0], suggest(args[0], []string{"bash", "zsh", "fish"}))
		return exitUsage
	}
	return exitOK
}

const bashCompletion = `# lfsim completion for bash: source this, or put it in
# /etc/bash_completion.d/lfsim (zsh: lfsim completion zsh).
_lfsim() {
	local cur="${COMP_WORDS[COMP_CWORD]}"
	local IFS=$'\n'
	COMPREPLY=($(lfsim __complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" -- "$cur" 2>/dev/null))
	case "${COMP_WORDS[1]}" in
	run|validate|sweep)
		# scenario files beside the names lfsim knows
		[[ $cur == -* ]] || COMPREPLY+=($(compgen -f -- "$cur"));;
	esac
}
complete -o default -F _lfsim lfsim
`

const fishCompletion = `# lfsim completion for fish: put it in ~/.config/fish/completions/lfsim.fish
complete -c lfsim -a '(lfsim __complete (commandline -opc)[2..-1] -- (commandline -ct) 2>/dev/null)'
`

// completeCmd is `lfsim __complete WORDS... -- CURRENT`: the candidates
// for CURRENT after WORDS (the words after lfsim), one a line.
func completeCmd(args []string, stdout io.Writer) int {
	var words []string
	cur := ""
	for i, a := range args {
		if a == "--" {
			words = args[:i]
			if i+1 < len(args) {
				cur = args[i+1]
			}
			break
		}
	}
	for _, c := range completions(words, cur) {
		if strings.HasPrefix(c, cur) {
			fmt.Fprintln(stdout, c)
		}
	}
	return exitOK
}

// completions lists what may follow words (before filtering by the
// current word's prefix).
func completions(words []string, cur string) []string {
	if len(words) == 0 {
		return commands
	}
	cmd := words[0]
	flags, takesValue := flagsOf(cmd)
	if len(words) > 1 && takesValue[words[len(words)-1]] {
		return nil // a flag's value: a file or folder, the shell's own
	}
	if strings.HasPrefix(cur, "-") {
		if cmd == "lab" && (len(words) != 2 || words[1] == "check") {
			return nil // --answers follows a lab's name
		}
		return flags
	}
	switch cmd {
	case "run", "validate":
		var out []string
		for _, e := range scenarios.Examples() {
			out = append(out, e.Name)
		}
		for _, l := range scenarios.Labs() {
			out = append(out, l.Scenarios...)
		}
		return out
	case "lab":
		var out []string
		if len(words) == 1 {
			out = append(out, "check")
		}
		if len(words) == 1 || len(words) == 2 && words[1] == "check" {
			for _, l := range scenarios.Labs() {
				out = append(out, l.Name)
			}
		}
		return out
	case "completion":
		return []string{"bash", "zsh", "fish"}
	case "schema":
		if len(words) == 1 {
			return []string{"scenario", "sweep"}
		}
		return nil
	case "bench":
		return suiteNames()
	case "sweep":
		return scenarios.SweepExamples() // and files: the shell's own
	case "reproduce":
		return append(reproduce.Names(), "all")
	}
	return nil // file names: the shell's own
}

// flagRE finds a flag in a flag set's usage: its short name, its long
// name and, for a flag that takes a value, the value's type.
var flagRE = regexp.MustCompile(`(?m)^\s+(?:-(\w), )?(--[\w-]+)( \w+)?`)

// flagsOf returns a subcommand's flags (long names, sorted), read from its
// own --help, and which of them (long and short) take a value.
func flagsOf(cmd string) (flags []string, takesValue map[string]bool) {
	takesValue = map[string]bool{}
	switch cmd {
	case "run", "validate", "report", "sweep", "bench", "sonic", "reproduce":
	case "lab":
		return []string{"--answers"}, takesValue
	default:
		return nil, takesValue
	}
	var help bytes.Buffer
	Main([]string{cmd, "--help"}, io.Discard, &help)
	for _, m := range flagRE.FindAllStringSubmatch(help.String(), -1) {
		if m[2] == "--child" { // internal
			continue
		}
		flags = append(flags, m[2])
		if m[3] != "" {
			takesValue[m[2]] = true
			if m[1] != "" {
				takesValue["-"+m[1]] = true
			}
		}
	}
	sort.Strings(flags)
	return flags, takesValue
}

// suiteNames are the embedded performance suite's scenarios, by name.
func suiteNames() []string {
	files, _ := fs.Glob(scenarios.Bench, "*.yaml")
	for i, f := range files {
		files[i] = strings.TrimSuffix(f, ".yaml")
	}
	return files
}
