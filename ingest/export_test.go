package ingest

import "github.com/lovbench/lovbench/sessions"

// ReadSessions reads every SERP of a sessions.parquet file, for the tests
// of the package and of ingest_test.
func ReadSessions(path string) ([]sessions.SERP, error) {
	var out []sessions.SERP
	err := sessions.ScanParquet(path, func(s *sessions.SERP) error {
		c := *s
		c.Results = append([]string(nil), s.Results...)
		c.Clicks = append([]sessions.Click(nil), s.Clicks...)
		out = append(out, c)
		return nil
	})
	return out, err
}
