// Package scenarios is lfsim's library of scenario files, embedded in the
// binary so that each runs by name from any directory: the examples
// (examples/NAME.yaml, `lfsim list`, `lfsim run NAME`, and their sweeps
// examples/NAME/sweep.yaml), the labs of the course (labs/LAB/: a README,
// the teacher's ANSWERS and the scenarios, `lfsim lab`, `lfsim run
// labs/LAB/SCENARIO`; lab 1's Go skeleton is the package
// labs/first-verbs-program/pingpong) and the performance suite
// (bench/*.yaml, `lfsim bench`; bench/diag/ holds the diagnostic
// scenarios, not embedded). scenario.schema.json, the format's JSON
// Schema that the files' first line points an editor at, sits beside
// them; package scenario's tests hold it equal to what `lfsim schema`
// writes.
//
// The format itself (reading a file, its errors, its units) is package
// scenario; this package only finds and lists the files, and imports
// scenario for the way its messages name things (Show, DidYouMean).
package scenarios
