package ltr

// SplitQueries returns the datasets of queries [0,a), [a,b) and [b,end) of
// ds (sharing documents with ds).
func SplitQueries(ds *Dataset, a, b int) (x, y, z *Dataset) {
	mk := func(name string, qs []Query) *Dataset {
		return &Dataset{Name: ds.Name + "/" + name, Queries: qs, NumFeatures: ds.NumFeatures}
	}
	return mk("train", ds.Queries[:a]), mk("vali", ds.Queries[a:b]), mk("test", ds.Queries[b:])
}
