package export

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"gopkg.in/yaml.v3"

	"github.com/lovbench/lovbench/ltr"
)

// cardSplit is one split of a card config: its name, its files and its
// rows.
type cardSplit struct {
	name  string
	paths []string
	rows  int
}

// cardConfig is one config (subset) of the card's front matter.
type cardConfig struct {
	name   string
	splits []cardSplit
}

// cardConfigs returns the configs of the card: "all" (dataset.parquet
// whole, split "full", the default) and one "FoldK" per fold whose
// train, validation and test splits are the partition files of the
// fold's rotation (Folds), so that loading the directory with the Hugging
// Face datasets library by a fold's name gives that fold.
func cardConfigs(m *Manifest) []cardConfig {
	rows := map[int]int{}
	for _, p := range m.Partitions {
		rows[p.Partition] = p.Rows
	}
	split := func(name string, parts []int) cardSplit {
		s := cardSplit{name: name}
		for _, p := range parts {
			s.paths = append(s.paths, PartitionFile(p))
			s.rows += rows[p]
		}
		return s
	}
	out := []cardConfig{{name: "all", splits: []cardSplit{{name: "full", paths: []string{ParquetFile}, rows: m.Rows}}}}
	for _, f := range Folds(m.Parameters.Folds) {
		out = append(out, cardConfig{name: ltr.FoldDir(f.Fold), splits: []cardSplit{
			split("train", f.Train), split("validation", []int{f.Vali}), split("test", []int{f.Test})}})
	}
	return out
}

// hubDtype is the Hugging Face datasets dtype of an Arrow column type.
func hubDtype(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "string"
	case arrow.INT32:
		return "int32"
	case arrow.INT64:
		return "int64"
	case arrow.FLOAT32:
		return "float32"
	case arrow.FLOAT64:
		return "float64"
	case arrow.BOOL:
		return "bool"
	}
	return t.Name()
}

// cardFrontMatter returns the YAML front matter of the card, with the
// fields the Hugging Face Hub documents for dataset cards only: the
// licence (license_name and license_link when it is "other"), task,
// tags, size, the configs (cardConfigs) and dataset_info in the Hub's
// schema (per config: features with their dtypes, splits with their
// number of examples).
func cardFrontMatter(m *Manifest) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("---\n")
	p("pretty_name: LOVBench-style learning-to-rank benchmark\n")
	lic := m.Publication.License()
	p("license: %s\n", lic)
	if lic == "other" {
		p("license_name: lovbench-log-and-corpus-terms\n")
		p("license_link: %s\n", LicenseFile)
	}
	p("annotations_creators:\n- machine-generated\n")
	p("task_categories:\n- text-ranking\n")
	p("tags:\n- learning-to-rank\n- letor\n- linked-open-vocabularies\n- click-models\n")
	if m.Publication != nil && m.Publication.SimulatedLog {
		p("- synthetic\n")
	}
	p("size_categories:\n- %s\n", sizeCategory(m.Rows))
	cfgs := cardConfigs(m)
	p("configs:\n")
	for _, c := range cfgs {
		p("- config_name: %s\n  data_files:\n", c.name)
		for _, s := range c.splits {
			p("  - split: %s\n", s.name)
			if len(s.paths) == 1 {
				p("    path: %s\n", s.paths[0])
				continue
			}
			p("    path:\n")
			for _, f := range s.paths {
				p("    - %s\n", f)
			}
		}
		if c.name == "all" {
			p("  default: true\n")
		}
	}
	p("dataset_info:\n")
	for _, c := range cfgs {
		p("- config_name: %s\n  features:\n", c.name)
		for _, f := range manifestFields(m) {
			p("  - name: %s\n    dtype: %s\n", f.Name, hubDtype(f.Type))
		}
		p("  splits:\n")
		for _, s := range c.splits {
			p("  - name: %s\n    num_examples: %d\n", s.name, s.rows)
		}
	}
	p("---\n\n")
	return b.Bytes()
}

// hubCardKeys are the top-level keys of a dataset card's front matter the
// Hub documents (its dataset card specification, datasetcard.md).
var hubCardKeys = []string{
	"language", "license", "license_name", "license_link", "license_details", "tags", "annotations_creators",
	"language_creators", "language_details", "pretty_name", "size_categories", "source_datasets", "task_categories",
	"task_ids", "paperswithcode_id", "configs", "dataset_info", "extra_gated_fields", "extra_gated_prompt", "train-eval-index",
}

// hubSizeCategories are the size categories the Hub knows.
var hubSizeCategories = []string{
	"n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M", "100M<n<1B", "1B<n<10B", "10B<n<100B", "100B<n<1T", "n>1T",
}

// hubDtypes are the datasets library's value dtypes a feature may have.
var hubDtypes = []string{
	"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
	"string", "large_string", "binary", "large_binary", "date32", "date64", "null",
}

var (
	// licenseNameRe is the form of a license_name: an identifier such as
	// my-license-1.0.
	licenseNameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	// splitNameRe is the form of a split name in the datasets library.
	splitNameRe = regexp.MustCompile(`^\w+(\.\w+)*$`)
)

// frontMatter returns the YAML front matter of a card, or an error.
func frontMatter(card []byte) (map[string]any, error) {
	s := string(card)
	if !strings.HasPrefix(s, "---\n") {
		return nil, fmt.Errorf("no YAML front matter (the card must start with a line ---)")
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return nil, fmt.Errorf("the YAML front matter has no closing line ---")
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(s[4:4+end+1]), &fm); err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	return fm, nil
}

// CheckFrontMatter checks the YAML front matter of the dataset card
// against the fields the Hugging Face Hub documents: only documented
// top-level keys; a license from the Hub's list, with license_name (an
// identifier) and license_link (a file of the directory or a URL) when it
// is "other"; known size categories; configs with unique names, at most
// one default, splits with valid unique names whose files exist in dir;
// dataset_info entries (one per config, or one) with features of known
// dtypes and the splits of their config, each with num_examples equal to
// the rows the manifest m lists for the split's files. It returns the
// problems found.
func CheckFrontMatter(card []byte, dir string, m *Manifest) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, CardFile+": "+fmt.Sprintf(format, args...)) }
	fm, err := frontMatter(card)
	if err != nil {
		bad("%v", err)
		return probs
	}
	keys := make([]string, 0, len(fm))
	for k := range fm {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(hubCardKeys, k) && !strings.HasPrefix(k, "extra_gated_") {
			bad("front matter key %q is not a field of the Hub's dataset card specification", k)
		}
	}
	// Licence.
	lic, _ := fm["license"].(string)
	switch _, known := HubLicenses[lic]; {
	case lic == "":
		bad("no license")
	case !known:
		bad("license %q is not a licence identifier of the Hub", lic)
	case lic == "other":
		name, _ := fm["license_name"].(string)
		link, _ := fm["license_link"].(string)
		if !licenseNameRe.MatchString(name) {
			bad("license: other needs license_name, an identifier such as my-license-1.0 (have %q)", name)
		}
		switch {
		case link == "":
			bad("license: other needs license_link (a file of the dataset or a URL)")
		case !strings.Contains(link, "://"):
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(link))); err != nil {
				bad("license_link %s: no such file in the dataset", link)
			}
		}
	}
	for _, sc := range stringList(fm["size_categories"]) {
		if !slices.Contains(hubSizeCategories, sc) {
			bad("size category %q is not one of the Hub's", sc)
		}
	}
	// Configs.
	rows := map[string]int{}
	for _, o := range m.Outputs {
		rows[o.Path] = o.Rows
	}
	splitRows := map[string]map[string]int{} // config -> split -> rows
	cfgs, _ := fm["configs"].([]any)
	if fm["configs"] != nil && cfgs == nil {
		bad("configs is not a list")
	}
	defaults := 0
	for i, c := range cfgs {
		cm, _ := c.(map[string]any)
		name, _ := cm["config_name"].(string)
		if name == "" {
			bad("configs[%d]: no config_name", i)
			continue
		}
		if _, dup := splitRows[name]; dup {
			bad("config %s appears twice", name)
		}
		splitRows[name] = map[string]int{}
		if d, _ := cm["default"].(bool); d {
			defaults++
		}
		dfs, _ := cm["data_files"].([]any)
		if len(dfs) == 0 {
			bad("config %s: no data_files splits", name)
		}
		for _, d := range dfs {
			dm, _ := d.(map[string]any)
			split, _ := dm["split"].(string)
			if !splitNameRe.MatchString(split) {
				bad("config %s: split name %q is not a word (letters, digits, _)", name, split)
				continue
			}
			if _, dup := splitRows[name][split]; dup {
				bad("config %s: split %s appears twice", name, split)
			}
			paths := stringList(dm["path"])
			if len(paths) == 0 {
				bad("config %s: split %s has no path", name, split)
			}
			n := 0
			for _, p := range paths {
				if strings.ContainsAny(p, "*?[") {
					continue // a pattern: the Hub resolves it
				}
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
					bad("config %s: split %s: %s is not a file of the dataset", name, split, p)
				}
				n += rows[p]
			}
			splitRows[name][split] = n
		}
	}
	if defaults > 1 {
		bad("%d configs are marked default; at most one may be", defaults)
	}
	// dataset_info: one mapping, or a list with one per config.
	var infos []any
	switch di := fm["dataset_info"].(type) {
	case nil:
	case []any:
		infos = di
	case map[string]any:
		infos = []any{di}
	default:
		bad("dataset_info is neither a mapping nor a list")
	}
	for i, in := range infos {
		im, _ := in.(map[string]any)
		for k := range im {
			if !slices.Contains([]string{"config_name", "features", "splits", "download_size", "dataset_size"}, k) {
				bad("dataset_info[%d]: key %q is not in the Hub's schema (config_name, features, splits, download_size, dataset_size)", i, k)
			}
		}
		cname, _ := im["config_name"].(string)
		if cname == "" && len(infos) == 1 {
			cname = "default"
		}
		want, ok := splitRows[cname]
		if !ok && len(splitRows) > 0 {
			bad("dataset_info[%d]: config %q is not one of configs", i, cname)
		}
		feats, _ := im["features"].([]any)
		for _, f := range feats {
			fm, _ := f.(map[string]any)
			fname, _ := fm["name"].(string)
			dtype, _ := fm["dtype"].(string)
			if fname == "" || !slices.Contains(hubDtypes, dtype) {
				bad("dataset_info %s: feature %q has dtype %q, not one of the datasets library's", cname, fname, dtype)
			}
		}
		splits, _ := im["splits"].([]any)
		for _, s := range splits {
			sm, _ := s.(map[string]any)
			sname, _ := sm["name"].(string)
			n, isInt := sm["num_examples"].(int)
			got, listed := want[sname]
			switch {
			case ok && !listed:
				bad("dataset_info %s: split %q is not a split of the config", cname, sname)
			case !isInt:
				bad("dataset_info %s: split %s: num_examples is not a whole number", cname, sname)
			case ok && n != got:
				bad("dataset_info %s: split %s: num_examples %d, its files hold %d rows", cname, sname, n, got)
			}
		}
	}
	return probs
}

// stringList reads a string or a list of strings of decoded YAML or JSON.
func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
