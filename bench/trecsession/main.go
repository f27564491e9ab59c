// Command trecsession converts the session logs of the TREC Session Track
// (2011-2014: an XML file of sessions, each a run of interactions with the
// query, the ranked results and the clicks, and a judgments file of graded
// relevance per topic and document) into the Yandex relevance-prediction
// log `lovbench ingest --format yandex` and `lovbench fit --log` read, and
// a TSV of human grades per (query, document), so that the labels of
// lovbench can be compared with human judgments (docs/method.md, "Labels
// against human grades"). It writes nothing of the data elsewhere.
//
//	go run ./bench/trecsession -out /tmp/trec \
//	    -sessions sessiontrack2012.xml,sessiontrack2013.xml \
//	    -judgments judgments2012.txt,judgments2013.txt
//
// Each interaction with results becomes a SERP (`S T Q query 0 doc...`,
// the documents in rank order by their ClueWeb ID) followed by one click
// line per clicked document (a document clicked twice is written once);
// its session is the track's session (file index and session number), T
// the interaction's index within it (with -times, the interaction's and
// each click's start time in milliseconds, so that the order of the
// clicks reaches PSCM). The query is the interaction's query
// with white space runs turned into one space. A (query, document) pair
// takes the grade its session's topic gives the document in the
// judgments of the same file index; a pair whose query appears under
// topics that grade it differently is left out and counted. Interactions
// without a query or results are counted and left out.
package main

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/ingest"
	"github.com/lovbench/lovbench/internal/atomicfile"
)

type sessionTrack struct {
	Sessions []struct {
		Num   string `xml:"num,attr"`
		Topic struct {
			Num string `xml:"num,attr"`
		} `xml:"topic"`
		Interactions []struct {
			Start   string `xml:"starttime,attr"`
			Query   string `xml:"query"`
			Results []struct {
				Rank string `xml:"rank,attr"`
				ID09 string `xml:"clueweb09id"`
				ID12 string `xml:"clueweb12id"`
			} `xml:"results>result"`
			Clicks []struct {
				Start string `xml:"starttime,attr"`
				Rank  string `xml:"rank"`
			} `xml:"clicked>click"`
		} `xml:"interaction"`
	} `xml:"session"`
}

type counts struct {
	Sessions, SERPs, ClicklessSERPs, Clicks, SkippedInteractions, ClicksOffSERP int
	JudgedPairs, ConflictingPairs                                               int
}

func main() {
	sessions := flag.String("sessions", "", "comma-separated session XML files of the TREC Session Track")
	judgments := flag.String("judgments", "", "comma-separated judgment files (topic 0 docno grade), one per session file, in the same order")
	out := flag.String("out", "", "output directory: log.yandex.tsv, grades.tsv, counts.txt")
	times := flag.Bool("times", false, "write the start times of the interactions and clicks (milliseconds) as TimePassed instead of the interaction's index, so that the order of the clicks reaches PSCM")
	flag.Parse()
	if err := run(strings.Split(*sessions, ","), strings.Split(*judgments, ","), *out, *times); err != nil {
		fmt.Fprintln(os.Stderr, "trecsession:", err)
		os.Exit(1)
	}
}

func run(sessFiles, judgFiles []string, out string, times bool) error {
	if out == "" || len(sessFiles) != len(judgFiles) || sessFiles[0] == "" {
		return errors.New("give -out and as many -judgments files as -sessions files")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var logBuf bytes.Buffer
	w := &logBuf
	var c counts
	type pair struct{ q, d string }
	grades := map[pair]string{}
	conflict := map[pair]bool{}
	for fi, sf := range sessFiles {
		judged, err := readJudgments(judgFiles[fi])
		if err != nil {
			return err
		}
		var st sessionTrack
		b, err := os.ReadFile(sf)
		if err != nil {
			return err
		}
		if err := xml.Unmarshal(b, &st); err != nil {
			return fmt.Errorf("%s: %w", sf, err)
		}
		for _, s := range st.Sessions {
			c.Sessions++
			sid := fmt.Sprintf("%d-%s", fi+1, s.Num)
			for ii, in := range s.Interactions {
				q := ingest.NormalizeQuery(in.Query)
				var docs []string
				byRank := map[string]string{}
				for _, r := range in.Results {
					d := strings.TrimSpace(r.ID09 + r.ID12)
					if d == "" {
						continue
					}
					docs = append(docs, d)
					byRank[strings.TrimSpace(r.Rank)] = d
				}
				if q == "" || len(docs) == 0 {
					c.SkippedInteractions++
					continue
				}
				c.SERPs++
				at := func(start string) (int64, error) { return int64(ii), nil }
				if times {
					at = func(start string) (int64, error) {
						x, err := strconv.ParseFloat(strings.TrimSpace(start), 64)
						if err != nil || x < 0 || math.IsInf(x, 0) {
							return 0, fmt.Errorf("%s: session %s, interaction %d: starttime %q is not a time in seconds", sf, s.Num, ii+1, start)
						}
						return int64(math.Round(x * 1000)), nil
					}
				}
				qt, err := at(in.Start)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\t%d\tQ\t%s\t0\t%s\n", sid, qt, q, strings.Join(docs, "\t"))
				seen := map[string]bool{}
				for _, cl := range in.Clicks {
					d, ok := byRank[strings.TrimSpace(cl.Rank)]
					if !ok {
						c.ClicksOffSERP++
						continue
					}
					if !seen[d] {
						seen[d] = true
						c.Clicks++
						ct, err := at(cl.Start)
						if err != nil {
							return err
						}
						fmt.Fprintf(w, "%s\t%d\tC\t%s\n", sid, ct, d)
					}
				}
				if len(seen) == 0 {
					c.ClicklessSERPs++
				}
				for _, d := range docs {
					g, ok := judged[s.Topic.Num+"\t"+d]
					if !ok {
						continue
					}
					p := pair{q, d}
					if old, ok := grades[p]; ok && old != g {
						conflict[p] = true
					}
					grades[p] = g
				}
			}
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(out, "log.yandex.tsv"), logBuf.Bytes()); err != nil {
		return err
	}
	var ps []pair
	for p := range grades {
		if conflict[p] {
			c.ConflictingPairs++
			continue
		}
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].q < ps[j].q || ps[i].q == ps[j].q && ps[i].d < ps[j].d })
	c.JudgedPairs = len(ps)
	var gw bytes.Buffer
	fmt.Fprintln(&gw, "query\tdoc\tgrade")
	for _, p := range ps {
		fmt.Fprintf(&gw, "%s\t%s\t%s\n", p.q, p.d, grades[p])
	}
	if err := atomicfile.WriteBytes(filepath.Join(out, "grades.tsv"), gw.Bytes()); err != nil {
		return err
	}
	summary := fmt.Sprintf("%+v\n", c)
	fmt.Print(summary)
	return atomicfile.WriteBytes(filepath.Join(out, "counts.txt"), []byte(summary))
}

// readJudgments reads `topic 0 docno grade` lines into "topic\tdocno" ->
// grade.
func readJudgments(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 4 {
			return nil, fmt.Errorf("%s:%d: %d fields, want topic 0 docno grade", path, line, len(fs))
		}
		if _, err := strconv.Atoi(fs[3]); err != nil {
			return nil, fmt.Errorf("%s:%d: field grade: %q is not an integer", path, line, fs[3])
		}
		m[fs[0]+"\t"+fs[2]] = fs[3]
	}
	return m, sc.Err()
}
