package programs

// must panics on err: a verb a program's setup calls with arguments it
// chose itself (a QP it has just made moved to INIT, a RECV on an RQ it
// sized) fails only if the program is wrong, as the tools exit on it.
func must(err error) {
	if err != nil {
		panic(err)
	}
}
