package ingest

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/lovbench/lovbench/sessions"
)

// SyntheticYandex writes a synthetic Yandex relevance-prediction log of
// exactly events lines, for benchmarks: sessions of 1-4 SERPs of 10 URLs,
// numeric query and URL IDs drawn from skewed distributions, and 0-3 clicks
// per SERP on URLs of that SERP. The same seed gives the same log.
func SyntheticYandex(w io.Writer, events int, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(seed, 0x6c6f7662656e6368))
	var b []byte
	serp := sessions.SERP{Region: "0", Results: make([]string, 10)}
	written := 0
	for sess := 0; written < events; sess++ {
		t := 0
		serp.SessionID = strconv.Itoa(sess)
		for q := rng.IntN(4); q >= 0 && written < events; q-- {
			query := rng.IntN(1000) * rng.IntN(1000) // skewed: many rare, few frequent
			serp.Query, serp.TimePassed, serp.Clicks = strconv.Itoa(query), int64(t), serp.Clicks[:0]
			base := query % 5000000
			for i := range serp.Results {
				serp.Results[i] = strconv.Itoa(base*10 + i*7 + rng.IntN(3)*100)
			}
			written++
			t += 1 + rng.IntN(30)
			for c := rng.IntN(4); c > 0 && written < events; c-- {
				serp.Clicks = append(serp.Clicks, sessions.Click{Rank: min(rng.IntN(12), 9), TimePassed: int64(t)})
				written++
				t += 1 + rng.IntN(60)
			}
			b = sessions.AppendYandexBytes(b[:0], &serp)
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
