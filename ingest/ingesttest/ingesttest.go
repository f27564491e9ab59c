// Package ingesttest holds test input for engines that clean a log part by
// part (ingest.CleanYandexPart, the beam module): logs with the lines that
// make cutting hard. Only tests import it.
package ingesttest

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/lovbench/lovbench/ingest"
)

// AwkwardYandex writes SyntheticYandex's log of events lines with, every
// few lines, the lines that make cutting a log into parts hard: CRLF and
// lone-CR terminators, blank and malformed lines inside sessions, clicks
// without a session ID, clicks outside their SERP (rule 4), and a session
// ID that comes back after another session (a new session in the
// cleaner's reading). For tests of engines that clean a log part by part
// (CleanYandexPart, the beam module).
func AwkwardYandex(w io.Writer, events int, seed uint64) error {
	var buf bytes.Buffer
	if err := ingest.SyntheticYandex(&buf, events, seed); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, l := range lines {
		switch i % 97 {
		case 3:
			bw.WriteString(l + "\r\n")
		case 5:
			bw.WriteString(l + "\r")
		case 11:
			bw.WriteString(l + "\n\n")
		case 13:
			bw.WriteString(l + "\nnot a yandex line\n")
		case 17:
			bw.WriteString(l + "\n\t1\tC\t5\n") // no session ID
		case 19:
			sid, _, _ := strings.Cut(l, "\t")
			bw.WriteString(l + "\n" + sid + "\t999\tC\tnot-in-serp\n")
		case 23:
			bw.WriteString(l + "\nzz\t0\tQ\tq\t0\tu1\tu2\nzz\t1\tC\tu1\n" + l + "\n")
		default:
			bw.WriteString(l + "\n")
		}
	}
	return bw.Flush()
}
