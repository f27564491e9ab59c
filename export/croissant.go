package export

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// CroissantFile is the Croissant 1.0 description export writes into the
// dataset directory.
const CroissantFile = "croissant.json"

// CroissantConformsTo is the specification croissant.json conforms to.
const CroissantConformsTo = "http://mlcommons.org/croissant/1.0"

// croissantContext is the JSON-LD context of croissant.json: the context
// the Croissant 1.0 specification recommends (its appendix 1), with the
// Wikidata prefix for the split data type and the two terms mlcroissant's
// own context adds (samplingRate, equivalentProperty), without which
// mlcroissant warns that the context is not standard.
func croissantContext() map[string]any {
	ctx := map[string]any{
		"@language": "en", "@vocab": "https://schema.org/", "sc": "https://schema.org/",
		"cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
		"dct": "http://purl.org/dc/terms/", "wd": "https://www.wikidata.org/wiki/",
		"data":     map[string]any{"@id": "cr:data", "@type": "@json"},
		"dataType": map[string]any{"@id": "cr:dataType", "@type": "@vocab"},
		"examples": map[string]any{"@id": "cr:examples", "@type": "@json"},
	}
	for _, t := range []string{"citeAs", "column", "extract", "field", "fileProperty", "fileObject", "fileSet", "format",
		"includes", "isLiveDataset", "jsonPath", "key", "md5", "parentField", "path", "recordSet", "references", "regex",
		"repeated", "replace", "separator", "source", "subField", "transform"} {
		ctx[t] = "cr:" + t
	}
	ctx["conformsTo"] = "dct:conformsTo"
	ctx["samplingRate"] = "cr:samplingRate"
	ctx["equivalentProperty"] = "cr:equivalentProperty"
	return ctx
}

// croissantType is the Croissant data type of an Arrow column type.
func croissantType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "sc:Text"
	case arrow.INT32, arrow.INT64:
		return "sc:Integer"
	case arrow.FLOAT32, arrow.FLOAT64:
		return "sc:Float"
	case arrow.BOOL:
		return "sc:Boolean"
	}
	return "sc:Text"
}

// encodingFormat is the MIME type croissant.json gives a dataset file.
func encodingFormat(p string) string {
	switch path.Ext(p) {
	case ".parquet":
		return "application/x-parquet"
	case ".arrow":
		return "application/vnd.apache.arrow.file"
	case ".csv":
		return "text/csv"
	case ".md":
		return "text/markdown"
	case ".json":
		return "application/json"
	}
	return "text/plain"
}

// croissantLicense is the licence of croissant.json: the SPDX page of the
// dataset's licence when it has one, else LICENSE.md, which states the
// inputs' terms.
func croissantLicense(p *Publication) string {
	if spdx := HubLicenses[p.License()]; spdx != "" {
		return "https://spdx.org/licenses/" + spdx + ".html"
	}
	return LicenseFile
}

// RenderCroissant returns croissant.json of the dataset described by m:
// Croissant 1.0 JSON-LD (dataset-level properties; the distribution, one
// cr:FileObject with its SHA-256 per output m lists but croissant.json
// itself and manifest.json, which lists croissant.json's; a record set
// "dataset" with one field per column of dataset.parquet and its data
// type; a record set "folds" with the partitions of each fold's train,
// validation and test split; the citation; and the Responsible AI
// properties the run knows). It holds no time but the publication date
// it was given, so reruns are byte-identical. Publication facts not
// stated (url, creator, datePublished) are left out; Validate lists them.
func RenderCroissant(m *Manifest) []byte {
	pub := m.Publication
	simulated := pub != nil && pub.SimulatedLog
	ds := map[string]any{
		"@context":    croissantContext(),
		"@type":       "sc:Dataset",
		"conformsTo":  CroissantConformsTo,
		"name":        "lovbench-dataset",
		"description": croissantDescription(m),
		"license":     croissantLicense(pub),
		"keywords":    []string{"learning to rank", "LETOR", "ontology search", "Linked Open Vocabularies", "click models"},
		"citeAs":      DatasetBibTeX(m) + "\n\n" + PaperBibTeX,
	}
	if pub != nil && pub.URL != "" {
		ds["url"] = pub.URL
	}
	if pub != nil && pub.Creator != "" {
		ds["creator"] = map[string]any{"@type": "sc:Person", "name": pub.Creator}
	}
	if pub != nil && pub.DatePublished != "" {
		ds["datePublished"] = pub.DatePublished
	}
	if pub != nil && pub.Version != "" {
		ds["version"] = pub.Version
	}
	var dist []any
	for _, o := range m.Outputs {
		if o.Path == CroissantFile || o.Path == ManifestFile {
			continue
		}
		dist = append(dist, map[string]any{
			"@type": "cr:FileObject", "@id": o.Path, "name": o.Path, "contentUrl": o.Path,
			"contentSize": fmt.Sprintf("%d B", o.Bytes), "encodingFormat": encodingFormat(o.Path), "sha256": o.SHA256,
		})
	}
	ds["distribution"] = dist
	var fields []any
	for _, f := range manifestFields(m) {
		fields = append(fields, map[string]any{
			"@type": "cr:Field", "@id": "dataset/" + f.Name, "name": f.Name, "dataType": croissantType(f.Type),
			"description": columnDescription(f.Name),
			"source":      map[string]any{"fileObject": map[string]any{"@id": ParquetFile}, "extract": map[string]any{"column": f.Name}},
		})
	}
	var foldRows []any
	for _, f := range Folds(m.Parameters.Folds) {
		add := func(split string, parts ...int) {
			for _, p := range parts {
				foldRows = append(foldRows, map[string]any{"folds/fold": f.Fold, "folds/split": split, "folds/partition": p})
			}
		}
		add("train", f.Train...)
		add("validation", f.Vali)
		add("test", f.Test)
	}
	ds["recordSet"] = []any{
		map[string]any{
			"@type": "cr:RecordSet", "@id": "dataset", "name": "dataset",
			"description": "One record per (query, term): " + fixedColumnNames(m) + ", then one column per feature (dataset.parquet; dataset.arrow and partitions/partition-K.parquet hold the same rows).",
			"key":         []any{map[string]any{"@id": "dataset/qid"}, map[string]any{"@id": "dataset/term"}},
			"field":       fields,
		},
		map[string]any{
			"@type": "cr:RecordSet", "@id": "folds", "name": "folds",
			"description": fmt.Sprintf("The LETOR rotation of the %d folds: fold k's train, validation and test splits are the rows of dataset whose partition is listed (FoldK/{train,vali,test}.txt hold the same rows in RankLib/SVMlight format).", m.Parameters.Folds),
			"field": []any{
				map[string]any{"@type": "cr:Field", "@id": "folds/fold", "name": "fold", "dataType": "sc:Integer"},
				map[string]any{"@type": "cr:Field", "@id": "folds/split", "name": "split", "dataType": []string{"sc:Text", "wd:Q3985153"}},
				map[string]any{"@type": "cr:Field", "@id": "folds/partition", "name": "partition", "dataType": "sc:Integer",
					// A reference names the field it references, as every
					// example of the Croissant repository does
					// ({"field": {"@id": ...}}); mlcroissant fails on a
					// bare {"@id": ...}.
					"references": map[string]any{"field": map[string]any{"@id": "dataset/partition"}}},
			},
			"data": foldRows,
		},
	}
	// Responsible AI (Croissant RAI 1.0): what the run knows.
	if simulated {
		ds["rai:dataCollection"] = "Simulated: no engine's users took part. " + strings.ReplaceAll(simulationText(pub), "`", "") + " The simulated search sessions were cleaned like a real log, click models were fitted to them and each query's first result page was labelled from the predicted satisfaction."
		ds["rai:dataCollectionType"] = []string{"Others (simulation by lovbench simulate)"}
		ds["rai:personalSensitiveInformation"] = "None: the queries and clicks are synthetic."
	} else {
		ds["rai:dataCollection"] = "Search sessions of a vocabulary search engine's log, cleaned by lovbench ingest (sessions without clicks, queries with personal information and clicks beyond the first result page removed); click models were fitted to them and each query's first result page was labelled from the predicted satisfaction."
		ds["rai:dataCollectionType"] = []string{"Passive Data Collection", "User-generated content data"}
		ds["rai:personalSensitiveInformation"] = "Queries were screened for personal data (e-mail addresses, telephone numbers and the like) and the matching sessions removed by lovbench ingest; session identifiers were pseudonymised and are not part of the dataset. The queries are users' text and may still hold what the screening missed."
	}
	ds["rai:dataCollectionRawData"] = "The search log (" + pub.logLicenseText() + ") and the vocabulary corpus (" + pub.corpusLicenseText() + ")."
	ds["rai:dataAnnotationProtocol"] = "No human annotation: graded labels (-2 junk, 0 to 4) were inferred from clicks by the click model with the best held-out log-likelihood and fixed thresholds on the predicted satisfaction; LETOR-style sampling added matching but unlabelled terms as label 0 (LOVBench paper, sections 4 and 5)."
	ds["rai:machineAnnotationTools"] = []string{fmt.Sprintf("%s %s (click models of the PyClick family fitted by EM)", m.Program, orUnknown(m.Version))}
	pre := []string{fmt.Sprintf("Features: %s.", semanticsText(m.Parameters.FeatureSemantics))}
	if fo := m.FeatureOrigin; fo != nil {
		pre = append(pre, fmt.Sprintf("How the features were computed (%s): corpus SHA-256 %s, lovbench version %s.", fo.Source, orUnknown(fo.CorpusSHA256), orUnknown(fo.Version)))
	}
	pre = append(pre, fmt.Sprintf("Queries split at random (seed %d) into %d partitions rotated into folds as in LETOR; each query's lines in a seeded order that carries no label information.", m.Parameters.Seed, m.Parameters.Folds))
	ds["rai:dataPreprocessingProtocol"] = pre
	ds["rai:dataUseCases"] = []string{fmt.Sprintf("Training and evaluating learning-to-rank models for ontology term search with the %d folds, compared with NDCG@k, MAP and ERR (LOVBench paper, section 6).", m.Parameters.Folds)}
	ds["rai:dataLimitations"] = []string{usesLimits(simulated)}
	ds["rai:dataBiases"] = []string{"Labels come from clicks on the engine's first result page: position bias is modelled by the click models but not removed, and terms the engine never showed have no click-based label."}
	b, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		panic(err) // maps of strings, numbers and slices always marshal
	}
	return append(b, '\n')
}

// croissantDescription is the description of the dataset in croissant.json.
func croissantDescription(m *Manifest) string {
	s := fmt.Sprintf("A learning-to-rank benchmark for ontology term search built like LOVBench (Kolbe et al., WWW 2020): %d (query, term) rows over %d queries with %d features and graded relevance labels inferred from clicks by click models, in %d LETOR folds.", m.Rows, m.Queries, len(m.Features), m.Parameters.Folds)
	if m.Publication != nil && m.Publication.SimulatedLog {
		s += " The search log was simulated: the labels come from synthetic clicks, not from users."
	}
	return s
}
