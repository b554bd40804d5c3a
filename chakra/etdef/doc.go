// Package etdef is MLCommons Chakra's execution trace schema
// (schema/protobuf/et_def.proto, "ChakraProtoMsg") as protoc-gen-go
// generates it: the messages a Chakra ET file holds (GlobalMetadata,
// Node, AttributeProto and its lists, IOInfo, Tensor) and the enums
// NodeType and CollectiveCommType.
//
// et_def.proto is the file of github.com/mlcommons/chakra at commit
// 21585d8f2d65603d791d2121e3d4632351120262 (2026-05-20, "Update version
// to 1.0.0", tag v0.0.4+160), unchanged; it is under the Apache License
// 2.0 (Chakra's LICENSE.md). et_def.pb.go is generated from it and
// committed, so that a build needs no protoc:
//
//	go generate ./chakra/etdef
//
// with protoc (Debian's protobuf-compiler, 3.21.12) and protoc-gen-go
// v1.36.12 (google.golang.org/protobuf/cmd/protoc-gen-go) on the PATH.
// TestGeneratedCodeCurrent regenerates it where both are installed and
// fails if the committed file differs. The file gives no go_package, so
// the import path is passed to protoc-gen-go by an M option.
package etdef

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go_opt=Met_def.proto=github.com/lfsim/lfsim/chakra/etdef --proto_path=. et_def.proto
