package sessions

import (
	"fmt"
	"io"

	"github.com/lovbench/lovbench/internal/atomicfile"
)

// YandexToParquet streams a Yandex log (plain or gzip, read strictly as Load
// reads it; ScanYandex) into a sessions.parquet file at dst, written
// atomically, holding one SERP at a time: how `fit` keeps a Yandex log out
// of memory under a memory limit. The SERPs keep their order, session IDs,
// queries, results and clicks (one per C line applied, in file order, with
// its TimePassed, from which the click order is read), which is all
// fitting reads;
// Index counts a SERP within the run of consecutive SERPs of its session
// (Yandex logs keep a session's lines together), TimePassed is 0 and
// Region "0".
func YandexToParquet(src, dst string) (YandexStats, error) {
	rc, err := Open(src)
	if err != nil {
		return YandexStats{}, fmt.Errorf("sessions: %w", err)
	}
	defer rc.Close()
	var st YandexStats
	err = atomicfile.WriteFile(dst, func(w io.Writer) error {
		pw := NewParquetWriter(w, 0)
		var s SERP
		prev, idx := "", 0
		var serr error
		st, serr = ScanYandexClicks(rc, src, true, func(session, query string, results []string, clicks []Click) error {
			if session == prev {
				idx++
			} else {
				prev, idx = session, 0
			}
			s = SERP{SessionID: session, Index: idx, Query: query, Region: "0", Results: results, Clicks: clicks}
			return pw.Write(&s)
		})
		if serr != nil {
			return serr
		}
		return pw.Close()
	})
	if err != nil {
		return st, fmt.Errorf("sessions: %w", err)
	}
	return st, nil
}
