package chakra

import (
	"fmt"
	"strconv"
)

// Error is a problem with a trace: the file, where in it (a node's id,
// or the byte where a message starts when no node could be read), and
// what was expected.
type Error struct {
	File string
	// Node is the node's id; HasNode says whether the error is at a node.
	Node    uint64
	HasNode bool
	// Offset is the byte of the file the message starts at (when
	// HasNode is false).
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	if e.HasNode {
		return fmt.Sprintf("%s: node %d: %s", e.File, e.Node, e.Msg)
	}
	return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Msg)
}

func nodeErr(file string, id uint64, format string, args ...any) *Error {
	return &Error{File: file, Node: id, HasNode: true, Msg: fmt.Sprintf(format, args...)}
}

func byteErr(file string, off int, format string, args ...any) *Error {
	return &Error{File: file, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
