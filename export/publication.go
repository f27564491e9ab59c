package export

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Publication is what the dataset card (README.md), LICENSE.md and
// croissant.json say about the dataset's inputs and its publication
// beyond the data: the licences of the search log and of the vocabulary
// corpus, whether the log was simulated, and the facts Croissant 1.0
// requires of a published dataset (url, creator, datePublished). Every
// field is optional: what is not stated is said to be unknown, never
// guessed.
type Publication struct {
	// LogLicense and CorpusLicense are the licences of the search log
	// and of the vocabulary corpus: a Hugging Face licence identifier
	// (HubLicenses: "cc-by-4.0", "mit", ...) or free text; "" not
	// stated. A simulated log has none.
	LogLicense    string `json:"log_license,omitempty"`
	CorpusLicense string `json:"corpus_license,omitempty"`
	// SimulatedLog is set when the log was simulated (lovbench simulate)
	// rather than collected from an engine's users.
	SimulatedLog bool `json:"simulated_log,omitempty"`
	// Simulation describes the simulation (SERPs, queries, click model,
	// seed), when SimulatedLog.
	Simulation string `json:"simulation,omitempty"`
	// URL is the dataset's web page, Creator who made it (a person or an
	// organisation), DatePublished when it was published (YYYY-MM-DD):
	// Croissant 1.0 requires all three of a dataset, and they cannot be
	// known before it is published; validate lists the missing ones.
	URL           string `json:"url,omitempty"`
	Creator       string `json:"creator,omitempty"`
	DatePublished string `json:"date_published,omitempty"`
	// Version is the dataset's version (MAJOR.MINOR.PATCH, as Croissant
	// recommends), for croissant.json; "" not stated.
	Version string `json:"version,omitempty"`
}

// LicenseFile is the statement of the dataset's terms export writes: the
// licences of the log and the corpus, which the card's license_link names.
const LicenseFile = "LICENSE.md"

// HubLicenses are the licence identifiers the Hugging Face Hub accepts in
// a card's license field (its "Licenses" documentation page), with the
// SPDX identifier of those SPDX lists ("" where it has none, as for a
// family of licences).
var HubLicenses = map[string]string{
	"apache-2.0": "Apache-2.0", "mit": "MIT", "openrail": "", "bigscience-openrail-m": "", "creativeml-openrail-m": "",
	"bigscience-bloom-rail-1.0": "", "bigcode-openrail-m": "", "afl-3.0": "AFL-3.0", "artistic-2.0": "Artistic-2.0",
	"bsl-1.0": "BSL-1.0", "bsd": "", "bsd-2-clause": "BSD-2-Clause", "bsd-3-clause": "BSD-3-Clause",
	"bsd-3-clause-clear": "BSD-3-Clause-Clear", "c-uda": "C-UDA-1.0", "cc": "", "cc0-1.0": "CC0-1.0",
	"cc-by-2.0": "CC-BY-2.0", "cc-by-2.5": "CC-BY-2.5", "cc-by-3.0": "CC-BY-3.0", "cc-by-4.0": "CC-BY-4.0",
	"cc-by-sa-3.0": "CC-BY-SA-3.0", "cc-by-sa-4.0": "CC-BY-SA-4.0", "cc-by-nc-2.0": "CC-BY-NC-2.0",
	"cc-by-nc-3.0": "CC-BY-NC-3.0", "cc-by-nc-4.0": "CC-BY-NC-4.0", "cc-by-nd-4.0": "CC-BY-ND-4.0",
	"cc-by-nc-nd-3.0": "CC-BY-NC-ND-3.0", "cc-by-nc-nd-4.0": "CC-BY-NC-ND-4.0", "cc-by-nc-sa-2.0": "CC-BY-NC-SA-2.0",
	"cc-by-nc-sa-3.0": "CC-BY-NC-SA-3.0", "cc-by-nc-sa-4.0": "CC-BY-NC-SA-4.0", "cdla-sharing-1.0": "CDLA-Sharing-1.0",
	"cdla-permissive-1.0": "CDLA-Permissive-1.0", "cdla-permissive-2.0": "CDLA-Permissive-2.0", "wtfpl": "WTFPL",
	"ecl-2.0": "ECL-2.0", "epl-1.0": "EPL-1.0", "epl-2.0": "EPL-2.0", "etalab-2.0": "etalab-2.0", "eupl-1.1": "EUPL-1.1",
	"agpl-3.0": "AGPL-3.0-only", "gfdl": "", "gpl": "", "gpl-2.0": "GPL-2.0-only", "gpl-3.0": "GPL-3.0-only", "lgpl": "",
	"lgpl-2.1": "LGPL-2.1-only", "lgpl-3.0": "LGPL-3.0-only", "isc": "ISC", "lppl-1.3c": "LPPL-1.3c", "ms-pl": "MS-PL",
	"mpl-2.0": "MPL-2.0", "odc-by": "ODC-By-1.0", "odbl": "ODbL-1.0", "openrail++": "", "osl-3.0": "OSL-3.0",
	"postgresql": "PostgreSQL", "ofl-1.1": "OFL-1.1", "ncsa": "NCSA", "unlicense": "Unlicense", "zlib": "Zlib",
	"pddl": "PDDL-1.0", "lgpl-lr": "", "deepfloyd-if-license": "", "llama2": "", "gemma": "", "unknown": "", "other": "",
}

// hubLicense returns the licence identifier of s if it is one of
// HubLicenses naming a licence (not "unknown" or "other"), else "".
func hubLicense(s string) string {
	id := strings.ToLower(strings.TrimSpace(s))
	if _, ok := HubLicenses[id]; !ok || id == "unknown" || id == "other" {
		return ""
	}
	return id
}

// License returns the licence of the dataset for the card's license field:
// the licence both inputs share when it is a Hub identifier (the corpus'
// alone when the log was simulated), else "other", with LicenseFile stating
// the terms of each input.
func (p *Publication) License() string {
	if p == nil {
		return "other"
	}
	corpus := hubLicense(p.CorpusLicense)
	switch {
	case corpus == "":
		return "other"
	case p.SimulatedLog:
		return corpus
	case hubLicense(p.LogLicense) == corpus:
		return corpus
	}
	return "other"
}

// licenseText describes one input's licence for LICENSE.md and the card.
func licenseText(s, unstated string) string {
	if strings.TrimSpace(s) == "" {
		return unstated
	}
	return s
}

// logLicenseText and corpusLicenseText describe the inputs' licences.
func (p *Publication) logLicenseText() string {
	if p != nil && p.SimulatedLog {
		return "none: the log was simulated by lovbench, no engine's users took part"
	}
	var s string
	if p != nil {
		s = p.LogLicense
	}
	return licenseText(s, "not stated: the terms of the search log's owner apply; ask them before publishing")
}

func (p *Publication) corpusLicenseText() string {
	var s string
	if p != nil {
		s = p.CorpusLicense
	}
	return licenseText(s, "not stated: each vocabulary of the corpus keeps its publisher's licence")
}

// RenderLicense returns LICENSE.md of the dataset described by m: the
// dataset's licence and the terms of the inputs it derives from.
func RenderLicense(m *Manifest) []byte {
	var b bytes.Buffer
	p := m.Publication
	fmt.Fprintf(&b, "# Terms of this dataset\n\n")
	if id := p.License(); id != "other" {
		fmt.Fprintf(&b, "Licence: `%s`.\n\n", id)
	} else {
		fmt.Fprintf(&b, "Licence: the terms of its inputs, below (the card's `license: other`).\n\n")
	}
	fmt.Fprintf(&b, "The dataset derives from two inputs, whose terms apply to it:\n\n")
	fmt.Fprintf(&b, "- The search log (the queries, and the clicks the relevance labels are inferred from): %s.\n", p.logLicenseText())
	fmt.Fprintf(&b, "- The vocabulary corpus (the term URIs and the feature values computed from the vocabularies): %s.\n\n", p.corpusLicenseText())
	fmt.Fprintf(&b, "The licences were stated to `lovbench export` (--log-license, --corpus-license) or in the run configuration (export.log_license, export.corpus_license).\n")
	return b.Bytes()
}

// PaperBibTeX is the BibTeX entry of the LOVBench paper, which defines
// the benchmark this dataset is built like.
const PaperBibTeX = `@inproceedings{kolbe2020lovbench,
  author    = {Kolbe, Niklas and Vandenbussche, Pierre-Yves and Kubler, Sylvain and Le Traon, Yves},
  title     = {{LOVBench}: Ontology Ranking Benchmark},
  booktitle = {Proceedings of The Web Conference 2020 (WWW '20)},
  year      = {2020},
  address   = {Taipei, Taiwan},
  publisher = {ACM},
  doi       = {10.1145/3366423.3380245}
}`

// DatasetBibTeX returns the BibTeX entry of the dataset described by m:
// its creator, year (of DatePublished) and URL when stated, the program
// version and the SHA-256 of dataset.parquet, which identifies the data.
func DatasetBibTeX(m *Manifest) string {
	var b strings.Builder
	b.WriteString("@misc{lovbench_dataset,\n")
	p := m.Publication
	if p != nil && p.Creator != "" {
		fmt.Fprintf(&b, "  author       = {%s},\n", bibEscape(p.Creator))
	}
	b.WriteString("  title        = {LOVBench-style learning-to-rank benchmark},\n")
	if p != nil && len(p.DatePublished) >= 4 {
		fmt.Fprintf(&b, "  year         = {%s},\n", bibEscape(p.DatePublished[:4]))
	}
	if p != nil && p.URL != "" {
		fmt.Fprintf(&b, "  howpublished = {\\url{%s}},\n", p.URL)
	}
	note := fmt.Sprintf("Built with %s %s; dataset.parquet SHA-256 %s", m.Program, orUnknown(m.Version), outputSHA256(m, ParquetFile))
	fmt.Fprintf(&b, "  note         = {%s}\n}", bibEscape(note))
	return b.String()
}

// bibEscape escapes the characters BibTeX treats specially in a value.
func bibEscape(s string) string {
	return strings.NewReplacer("\\", "\\textbackslash{}", "{", "\\{", "}", "\\}", "%", "\\%", "&", "\\&", "#", "\\#", "_", "\\_", "$", "\\$").Replace(s)
}

// outputSHA256 is the SHA-256 the manifest records for the output path,
// "unknown" when it lists none.
func outputSHA256(m *Manifest, path string) string {
	for _, o := range m.Outputs {
		if o.Path == path {
			return o.SHA256
		}
	}
	return "unknown"
}

// descriptions are the files that describe the data, in the order Write
// writes them, each rendered from the manifest alone (so that validate can
// render them again and compare): LICENSE.md, the card, croissant.json
// (last: it lists the SHA-256 of every other file but the manifest).
var descriptions = []struct {
	path   string
	render func(*Manifest) []byte
}{
	{LicenseFile, RenderLicense},
	{CardFile, RenderCard},
	{CroissantFile, RenderCroissant},
}

// semver is a version MAJOR.MINOR.PATCH, the form Croissant recommends.
var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// Check reports a Version that is not MAJOR.MINOR.PATCH, a DatePublished that is not a date YYYY-MM-DD and a URL
// that is not an absolute http(s) URL.
func (p *Publication) Check() error {
	if p == nil {
		return nil
	}
	if p.DatePublished != "" {
		if _, err := time.Parse(time.DateOnly, p.DatePublished); err != nil {
			return fmt.Errorf("date published %q: want a date YYYY-MM-DD", p.DatePublished)
		}
	}
	if p.Version != "" && !semver.MatchString(p.Version) {
		return fmt.Errorf("dataset version %q: want MAJOR.MINOR.PATCH, e.g. 1.0.0", p.Version)
	}
	if p.URL != "" && !strings.HasPrefix(p.URL, "https://") && !strings.HasPrefix(p.URL, "http://") {
		return fmt.Errorf("dataset URL %q: want an absolute http(s) URL", p.URL)
	}
	return nil
}
