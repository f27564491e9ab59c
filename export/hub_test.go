package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/lovbench/lovbench/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lovbench/lovbench/internal/pqfile"
	"github.com/lovbench/lovbench/ltr"
)

// section returns the card's section from its heading to the next "## ".
func section(card, heading string) string {
	i := strings.Index(card, "## "+heading)
	if i < 0 {
		return ""
	}
	rest := card[i+3:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		return rest[:j]
	}
	return rest
}

// TestCardHubFrontMatter: the card's front matter has only fields the
// Hub's dataset card specification documents (no num_rows, num_queries);
// without stated licences it is license: other with license_name and a
// license_link to LICENSE.md, which exists; the configs are "all"
// (dataset.parquet) and Fold1..Fold5, whose splits take the partitions of
// the LETOR rotation (Fold1 trains on 1, 2, 3, validates on 4, tests on 5;
// Fold2 trains on 2, 3, 4, validates on 5, tests on 1: Qin et al. 2010,
// Table 4), so that loading FoldK's split gives exactly the (qid, term)
// rows of FoldK/{train,vali,test}.txt, whose line counts dataset_info
// gives as num_examples; the card cites the LOVBench paper (its DOI) and
// the dataset; CheckFrontMatter rejects keys, licences and counts the Hub
// would not accept.
func TestCardHubFrontMatter(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 5})
	card, err := os.ReadFile(filepath.Join(dir, CardFile))
	if err != nil {
		t.Fatal(err)
	}
	fm, err := frontMatter(card)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range fm {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"annotations_creators", "configs", "dataset_info", "license", "license_link", "license_name", "pretty_name", "size_categories", "tags", "task_categories"}; !slices.Equal(keys, want) {
		t.Errorf("front matter keys %v, want %v", keys, want)
	}
	if fm["license"] != "other" || fm["license_name"] != "lovbench-log-and-corpus-terms" || fm["license_link"] != LicenseFile {
		t.Errorf("license %v name %v link %v", fm["license"], fm["license_name"], fm["license_link"])
	}
	lic, err := os.ReadFile(filepath.Join(dir, LicenseFile))
	if err != nil || !strings.Contains(string(lic), "not stated") {
		t.Errorf("LICENSE.md: %v\n%s", err, lic)
	}

	// Configs: the fold rotation, by partition file.
	type split struct {
		Split string `yaml:"split"`
		Path  any    `yaml:"path"`
	}
	var front struct {
		Configs []struct {
			Name      string  `yaml:"config_name"`
			DataFiles []split `yaml:"data_files"`
			Default   bool    `yaml:"default"`
		} `yaml:"configs"`
		Info []struct {
			Name     string `yaml:"config_name"`
			Features []struct {
				Name  string `yaml:"name"`
				Dtype string `yaml:"dtype"`
			} `yaml:"features"`
			Splits []struct {
				Name string `yaml:"name"`
				N    int    `yaml:"num_examples"`
			} `yaml:"splits"`
		} `yaml:"dataset_info"`
	}
	s := string(card)
	if err := yaml.Unmarshal([]byte(s[4:4+strings.Index(s[4:], "\n---\n")]), &front); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range front.Configs {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"all", "Fold1", "Fold2", "Fold3", "Fold4", "Fold5"}) || !front.Configs[0].Default {
		t.Fatalf("configs %v", names)
	}
	paths := func(v any) []string {
		if p, ok := v.(string); ok {
			return []string{p}
		}
		var out []string
		for _, p := range v.([]any) {
			out = append(out, p.(string))
		}
		return out
	}
	pf := func(ps ...int) []string {
		var out []string
		for _, p := range ps {
			out = append(out, fmt.Sprintf("partitions/partition-%d.parquet", p))
		}
		return out
	}
	for _, c := range []struct {
		cfg               int
		train, vali, test []string
	}{{1, pf(1, 2, 3), pf(4), pf(5)}, {2, pf(2, 3, 4), pf(5), pf(1)}} {
		df := front.Configs[c.cfg].DataFiles
		if len(df) != 3 || df[0].Split != "train" || df[1].Split != "validation" || df[2].Split != "test" ||
			!slices.Equal(paths(df[0].Path), c.train) || !slices.Equal(paths(df[1].Path), c.vali) || !slices.Equal(paths(df[2].Path), c.test) {
			t.Errorf("Fold%d data files %+v", c.cfg, df)
		}
	}
	// Loading each fold's split from its Parquet files gives the rows of
	// the fold file; dataset_info counts them.
	for k := 1; k <= 5; k++ {
		cfg, info := front.Configs[k], front.Info[k]
		if info.Name != cfg.Name || len(info.Splits) != 3 {
			t.Fatalf("dataset_info %d: %+v", k, info)
		}
		if len(info.Features) < 38 || info.Features[0] != (struct {
			Name  string `yaml:"name"`
			Dtype string `yaml:"dtype"`
		}{"query", "string"}) || info.Features[1].Dtype != "int32" || info.Features[5].Dtype != "float64" {
			t.Errorf("%s features %+v", cfg.Name, info.Features[:6])
		}
		for i, set := range []string{"train", "vali", "test"} {
			var got []string
			for _, p := range paths(cfg.DataFiles[i].Path) {
				tab, err := pqfile.ReadFile(filepath.Join(dir, p))
				if err != nil {
					t.Fatal(err)
				}
				for r := range tab.Rows {
					got = append(got, fmt.Sprintf("%d %s", tab.Columns[1].Int32s[r], tab.Columns[2].Strings[r]))
				}
			}
			var want []string
			for _, l := range readSVM(t, filepath.Join(dir, ltr.FoldFile(k, set))) {
				want = append(want, fmt.Sprintf("%d %s", l.qid, l.term))
			}
			if info.Splits[i].N != len(want) {
				t.Errorf("%s %s: num_examples %d, the fold file has %d lines", cfg.Name, set, info.Splits[i].N, len(want))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) || len(want) == 0 {
				t.Errorf("%s %s: the config's files hold %d rows, not the %d of %s", cfg.Name, set, len(got), len(want), ltr.FoldFile(k, set))
			}
		}
	}
	cite := section(s, "Citation")
	for _, w := range []string{"doi       = {10.1145/3366423.3380245}", "{LOVBench}: Ontology Ranking Benchmark", "@misc{lovbench_dataset", "dataset.parquet SHA-256"} {
		if !strings.Contains(cite, w) {
			t.Errorf("citation lacks %q:\n%s", w, cite)
		}
	}

	// What the Hub would not accept.
	m := readManifest(t, dir)
	if p := CheckFrontMatter(card, dir, m); len(p) != 0 {
		t.Fatalf("the written card fails: %v", p)
	}
	for _, c := range []struct{ from, to, want string }{
		{"license_name: lovbench-log-and-corpus-terms\n", "", "needs license_name"},
		{"license: other\n", "license: cc-by-4.5\n", "not a licence identifier"},
		{"pretty_name:", "num_rows: 72\npretty_name:", `"num_rows" is not a field`},
		{"  - name: full\n    num_examples: 72\n", "  - name: full\n    num_examples: 71\n", "num_examples 71, its files hold 72 rows"},
		{"- config_name: all\n  features:\n", "- config_name: all\n  num_queries: 12\n  features:\n", `key "num_queries" is not in the Hub's schema`},
		{"    path: dataset.parquet\n", "    path: data.parquet\n", "data.parquet is not a file of the dataset"},
		{"size_categories:\n- n<1K", "size_categories:\n- tiny", `"tiny" is not one of the Hub's`},
	} {
		edited := strings.Replace(s, c.from, c.to, 1)
		if edited == s {
			t.Fatalf("%q not in the card", c.from)
		}
		probs := CheckFrontMatter([]byte(edited), dir, m)
		if !slices.ContainsFunc(probs, func(p string) bool { return strings.Contains(p, c.want) }) {
			t.Errorf("%q -> %q: problems %v, want one with %q", c.from, c.to, probs, c.want)
		}
	}
	// The card main wrote before: dataset_info with keys the Hub does not know.
	old := "---\nlicense: other\nconfigs:\n- config_name: default\n  data_files:\n  - split: all\n    path: dataset.parquet\ndataset_info:\n  num_rows: 72\n  num_queries: 12\n---\n"
	if probs := CheckFrontMatter([]byte(old), dir, m); len(probs) < 3 {
		t.Errorf("the old card passes: %v", probs)
	}
	// A lost partition file: validate names it.
	os.Remove(filepath.Join(dir, PartitionFile(5)))
	if v, _ := Validate(context.Background(), dir); v.Valid || !hasProblem(v, "partitions/partition-5.parquet is not a file of the dataset") {
		t.Errorf("missing partition file: %v", v.Problems)
	}
}

// TestCardLicensesAndSimulatedLog: licences stated for both inputs make
// the card's license that identifier (a simulated log has none, so the
// corpus' counts alone); a simulated log is said so in Motivation,
// Collection process and Distribution, not only in the configuration
// table, and croissant.json says it too.
func TestCardLicensesAndSimulatedLog(t *testing.T) {
	for _, c := range []struct {
		pub  Publication
		want string
	}{
		{Publication{LogLicense: "CC-BY-4.0", CorpusLicense: "cc-by-4.0"}, "license: cc-by-4.0\n"},
		{Publication{LogLicense: "cc-by-nc-4.0", CorpusLicense: "cc-by-4.0"}, "license: other\nlicense_name: lovbench-log-and-corpus-terms\nlicense_link: LICENSE.md\n"},
		{Publication{SimulatedLog: true, CorpusLicense: "mit"}, "license: mit\n"},
	} {
		if got := string(cardFrontMatter(&Manifest{Publication: &c.pub, Parameters: Parameters{Folds: 5}})); !strings.Contains(got, c.want) {
			t.Errorf("%+v: front matter lacks %q", c.pub, c.want)
		}
	}
	pub := &Publication{SimulatedLog: true, Simulation: "400 SERPs over 12 queries, clicks from UBM, Zipf exponent 1.1, seed 9", CorpusLicense: "mit"}
	dir, _, _ := buildDir(t, Options{Seed: 5, Publication: pub})
	b, _ := os.ReadFile(filepath.Join(dir, CardFile))
	card := string(b)
	for _, c := range []struct{ section, want string }{
		{"Motivation", "This dataset's search log was simulated, not collected from users."},
		{"Motivation", "400 SERPs over 12 queries, clicks from UBM"},
		{"Collection process", "No engine's users took part"},
		{"Distribution", "the dataset holds no personal data of anyone"},
		{"Uses", "do not report results on this dataset as evidence about real users"},
	} {
		if !strings.Contains(section(card, c.section), c.want) {
			t.Errorf("%s lacks %q:\n%s", c.section, c.want, section(card, c.section))
		}
	}
	if strings.Contains(section(card, "Collection process"), "queries with personal information") || strings.Contains(section(card, "Distribution"), "screens queries for personal data") {
		t.Error("the card of a simulated log speaks of users' personal data")
	}
	cr, _ := os.ReadFile(filepath.Join(dir, CroissantFile))
	if !strings.Contains(string(cr), "The search log was simulated") || !strings.Contains(string(cr), "None: the queries and clicks are synthetic.") {
		t.Error("croissant.json does not say the log was simulated")
	}
	if v, err := Validate(context.Background(), dir); err != nil || !v.Valid {
		t.Fatalf("rejected: %v %v", err, v.Problems)
	}
}

// TestCroissant: croissant.json is Croissant 1.0: conformsTo its URI, a
// cr:FileObject for every file of the directory but itself and the
// manifest, each with the SHA-256 of the file (computed here with
// crypto/sha256); a record set with one field per column of
// dataset.parquet (the names read back with parquet-go) typed by its
// Parquet type; the 5 folds x 5 partitions rotation; licence, citation and
// the Responsible AI fields. validate accepts it, lists the publication
// facts it lacks until they are given, and rejects a wrong checksum or a
// missing licence.
func TestCroissant(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 5})
	raw, err := os.ReadFile(filepath.Join(dir, CroissantFile))
	if err != nil {
		t.Fatal(err)
	}
	var cr map[string]any
	if err := json.Unmarshal(raw, &cr); err != nil {
		t.Fatal(err)
	}
	if cr["conformsTo"] != "http://mlcommons.org/croissant/1.0" || cr["@type"] != "sc:Dataset" || cr["license"] != LicenseFile {
		t.Errorf("conformsTo %v type %v license %v", cr["conformsTo"], cr["@type"], cr["license"])
	}
	want := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		// The directory's index (lovbench's record of what it wrote, see
		// internal/atomicfile) is no part of the dataset.
		if rel != CroissantFile && rel != ManifestFile && rel != atomicfile.IndexFile {
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			want[rel] = hex.EncodeToString(sum[:])
		}
		return nil
	})
	dist := cr["distribution"].([]any)
	if len(dist) != len(want) || len(want) != 26 {
		t.Errorf("%d files in the distribution, %d in the directory (want 26)", len(dist), len(want))
	}
	for _, d := range dist {
		fo := d.(map[string]any)
		if fo["@type"] != "cr:FileObject" || want[fo["contentUrl"].(string)] != fo["sha256"] {
			t.Errorf("file object %v: want SHA-256 %s", fo, want[fo["contentUrl"].(string)])
		}
	}
	tab, err := pqfile.ReadFile(filepath.Join(dir, ParquetFile))
	if err != nil {
		t.Fatal(err)
	}
	rs := cr["recordSet"].([]any)
	fields := rs[0].(map[string]any)["field"].([]any)
	if len(fields) != len(tab.Columns) {
		t.Fatalf("%d fields, dataset.parquet has %d columns", len(fields), len(tab.Columns))
	}
	typeOf := map[string]string{"BYTE_ARRAY": "sc:Text", "INT32": "sc:Integer", "DOUBLE": "sc:Float"}
	for i, f := range fields {
		fm := f.(map[string]any)
		col := tab.Columns[i]
		src := fm["source"].(map[string]any)
		if fm["name"] != col.Name || fm["dataType"] != typeOf[col.Physical] || src["extract"].(map[string]any)["column"] != col.Name {
			t.Errorf("field %d %v, column %s %s", i, fm, col.Name, col.Physical)
		}
	}
	folds := rs[1].(map[string]any)["data"].([]any)
	if len(folds) != 25 {
		t.Errorf("%d fold rows, want 5 folds x 5 partitions", len(folds))
	}
	if f := folds[4].(map[string]any); f["folds/fold"] != 1.0 || f["folds/split"] != "test" || f["folds/partition"] != 5.0 {
		t.Errorf("Fold1 test %v, want partition 5", f)
	}
	for _, k := range []string{"rai:dataCollection", "rai:dataCollectionType", "rai:personalSensitiveInformation", "rai:dataUseCases", "rai:dataLimitations", "rai:dataAnnotationProtocol"} {
		if !nonEmpty(cr[k]) {
			t.Errorf("no %s", k)
		}
	}
	if !strings.Contains(cr["citeAs"].(string), "10.1145/3366423.3380245") || !strings.Contains(fmt.Sprint(cr["rai:dataLimitations"]), "Do not use the data to identify") {
		t.Error("citation or prohibited uses missing")
	}
	v, err := Validate(context.Background(), dir)
	if err != nil || !v.Valid || !slices.Equal(v.CroissantMissing, []string{"url", "creator", "datePublished"}) {
		t.Fatalf("valid %v missing %v problems %v", v.Valid, v.CroissantMissing, v.Problems)
	}
	pub := &Publication{URL: "https://huggingface.co/datasets/someone/lovbench", Creator: "Someone", DatePublished: "2026-11-26"}
	dir2, _, _ := buildDir(t, Options{Seed: 5, Publication: pub})
	v, err = Validate(context.Background(), dir2)
	if err != nil || !v.Valid || len(v.CroissantMissing) != 0 {
		t.Fatalf("published: valid %v missing %v problems %v", v.Valid, v.CroissantMissing, v.Problems)
	}
	// A wrong checksum, or no licence: rejected, the manifest fixed as an
	// attacker would.
	parquetSum := want[ParquetFile]
	for _, c := range []struct{ from, to, want string }{
		{`"sha256": "` + parquetSum + `"`, `"sha256": "` + strings.Repeat("0", 64) + `"`, "croissant.json: file dataset.parquet: SHA-256 " + parquetSum},
		{`"license": "LICENSE.md",`, "", "croissant.json: no license"},
	} {
		d, _, _ := buildDir(t, Options{Seed: 5})
		p := filepath.Join(d, CroissantFile)
		b, _ := os.ReadFile(p)
		edited := strings.Replace(string(b), c.from, c.to, 1)
		if edited == string(b) {
			t.Fatalf("%q not in croissant.json", c.from)
		}
		os.WriteFile(p, []byte(edited), 0o644)
		fixManifest(t, d)
		if v, _ := Validate(context.Background(), d); v.Valid || !hasProblem(v, c.want) {
			t.Errorf("%q: problems %v, want %q", c.to, v.Problems, c.want)
		}
	}
	if err := (&Publication{DatePublished: "26/11/2026"}).Check(); err == nil {
		t.Error("a date not YYYY-MM-DD accepted")
	}
}

// croissant.json in the form the Croissant repository's examples
// (datasets/1.0) use and mlcroissant reads: the partition field of the
// folds references {"field": {"@id": "dataset/partition"}}, the context
// has mlcroissant's terms samplingRate and equivalentProperty, and a
// stated dataset version is there; validate rejects the bare
// {"@id": "dataset/partition"} export wrote before.
func TestCroissantReferenceForm(t *testing.T) {
	dir, _, _ := buildDir(t, Options{Seed: 5, Publication: &Publication{Version: "1.2.0", DatePublished: "2026-11-28"}})
	p := filepath.Join(dir, CroissantFile)
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var cr map[string]any
	if err := json.Unmarshal(raw, &cr); err != nil {
		t.Fatal(err)
	}
	ctx := cr["@context"].(map[string]any)
	if ctx["samplingRate"] != "cr:samplingRate" || ctx["equivalentProperty"] != "cr:equivalentProperty" {
		t.Errorf("context samplingRate %v equivalentProperty %v", ctx["samplingRate"], ctx["equivalentProperty"])
	}
	if cr["version"] != "1.2.0" || cr["datePublished"] != "2026-11-28" {
		t.Errorf("version %v datePublished %v", cr["version"], cr["datePublished"])
	}
	folds := cr["recordSet"].([]any)[1].(map[string]any)
	part := folds["field"].([]any)[2].(map[string]any)
	if got, _ := json.Marshal(part["references"]); string(got) != `{"field":{"@id":"dataset/partition"}}` {
		t.Errorf("folds/partition references %s", got)
	}
	part["references"] = map[string]any{"@id": "dataset/partition"}
	b, _ := json.MarshalIndent(cr, "", "  ")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fixManifest(t, dir)
	v, err := Validate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Valid || !hasProblem(v, `field folds/partition: references {"@id":"dataset/partition"}, want {"field": {"@id": ...}}`) {
		t.Errorf("bare reference: valid %v problems %q", v.Valid, v.Problems)
	}
	if err := (&Publication{Version: "v1"}).Check(); err == nil {
		t.Error("version v1 accepted")
	}
}
