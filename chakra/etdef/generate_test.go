package etdef

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// generator is the protoc-gen-go the committed et_def.pb.go was made
// with (its header's versions line).
const generator = "protoc-gen-go v1.36.12"

// TestGeneratedCodeCurrent regenerates et_def.pb.go from et_def.proto
// where protoc and protoc-gen-go (of the version that made the committed
// file) are installed, and fails if the committed file differs from it
// in anything but the protoc version line of its header. Without them
// it skips: CI and users build from the committed file alone.
func TestGeneratedCodeCurrent(t *testing.T) {
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Skip("protoc is not installed (Debian: apt-get install protobuf-compiler)")
	}
	gen, err := exec.LookPath("protoc-gen-go")
	if err != nil {
		t.Skip("protoc-gen-go is not installed (go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12)")
	}
	out, err := exec.Command(gen, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != generator {
		t.Skipf("protoc-gen-go is %q, the committed file was made with %s", strings.TrimSpace(string(out)), generator)
	}
	dir := t.TempDir()
	cmd := exec.Command("protoc", "--go_out="+dir, "--go_opt=paths=source_relative",
		"--go_opt=Met_def.proto=github.com/lfsim/lfsim/chakra/etdef", "--proto_path=.", "et_def.proto")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(filepath.Join(dir, "et_def.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("et_def.pb.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(withoutProtocVersion(fresh), withoutProtocVersion(committed)) {
		t.Errorf("et_def.pb.go is stale: regenerate it with go generate ./chakra/etdef")
	}
}

// withoutProtocVersion drops the header line naming protoc's version,
// which a different Debian release changes without changing the code.
func withoutProtocVersion(b []byte) []byte {
	var keep [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("// \tprotoc ")) {
			keep = append(keep, line)
		}
	}
	return bytes.Join(keep, []byte("\n"))
}
