package sessions

// ReadParquet reads all SERPs of a sessions.parquet file.
func ReadParquet(path string) ([]SERP, error) {
	var out []SERP
	err := ScanParquet(path, func(s *SERP) error {
		c := *s
		c.Results = append([]string(nil), s.Results...)
		c.Clicks = append([]Click(nil), s.Clicks...)
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
