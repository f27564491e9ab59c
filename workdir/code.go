package workdir

import (
	"debug/elf"
	"fmt"
	"os"
	"strings"

	"github.com/lovbench/lovbench/internal/buildinfo"
	"github.com/lovbench/lovbench/internal/filehash"
)

// codeIdentity identifies the code that produces stage outputs: the program
// version (buildinfo.Version) and a hash of the running executable's
// content, so that any change of the program (an upgrade, a rebuild from
// modified sources, `go run` of another checkout) reruns every stage
// instead of trusting outputs of other code. Go builds are reproducible,
// so rebuilding the same sources with the same toolchain keeps the
// identity.
//
// The hash is the content ID the go command records in the executable's
// build ID (goContentID): after linking, `go build`, `go run` and `go test`
// hash the whole file and write that hash into it, as `go tool buildid -w`
// does, so it changes with every byte of the program, as a SHA-256 of the
// file would, and costs one read of a note instead of reading the file (40
// MB for a test binary, 0.05-0.09 CPU-s per work directory opened). An
// executable without such a build ID (not ELF, linked by other tools, or
// -ldflags=-buildid=) is hashed with SHA-256 as before.
func codeIdentity() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("identify the program: %w", err)
	}
	if id := goContentID(exe); id != "" {
		return buildinfo.Version() + " content=" + id, nil
	}
	sum, err := filehash.SHA256(exe)
	if err != nil {
		return "", fmt.Errorf("identify the program: %w", err)
	}
	return buildinfo.Version() + " exe=" + sum[:16], nil
}

// goContentID returns the content ID of a Go executable built by the go
// command: the last of the four parts of the build ID in its ELF note
// ".note.go.buildid" (actionID(binary)/actionID(main)/contentID(main)/
// contentID(binary), cmd/go's buildid.go), or "" when the file has no
// such note or the build ID has another shape (set by hand, or by a
// linker run outside the go command, which does not hash the result).
func goContentID(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return ""
	}
	d, err := sec.Data()
	if err != nil || len(d) < 16 {
		return ""
	}
	// One ELF note: namesz, descsz, type (4, Go's build ID tag), the name
	// "Go\x00" padded to 4 bytes, then the build ID.
	bo := f.ByteOrder
	namesz, descsz, typ := bo.Uint32(d[0:]), bo.Uint32(d[4:]), bo.Uint32(d[8:])
	off := 12 + (uint64(namesz)+3)&^3
	if typ != 4 || namesz != 4 || string(d[12:15]) != "Go\x00" || off+uint64(descsz) > uint64(len(d)) {
		return ""
	}
	parts := strings.Split(string(d[off:off+uint64(descsz)]), "/")
	if len(parts) != 4 {
		return ""
	}
	for _, p := range parts {
		if p == "" {
			return ""
		}
	}
	return parts[3]
}
