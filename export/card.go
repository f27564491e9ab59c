package export

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/lovbench/lovbench/features"
)

// CardFile is the dataset card export writes into the dataset directory.
const CardFile = "README.md"

// RenderCard returns the dataset card of a dataset directory: a README.md
// in the layout of a Hugging Face dataset card (YAML front matter with the
// fields the Hub documents, cardFrontMatter; then the datasheet sections
// of Gebru et al., "Datasheets for Datasets": motivation, composition,
// collection process, preprocessing, uses, distribution, maintenance, and
// a citation section), filled from the manifest m only, so that Validate
// can check that the card agrees with the manifest by rendering it again.
// The card's own entry of m.Outputs, if any, is not used.
func RenderCard(m *Manifest) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	pub := m.Publication
	simulated := pub != nil && pub.SimulatedLog
	b.Write(cardFrontMatter(m))

	p("# LOVBench-style learning-to-rank benchmark\n\n")
	p("Written by %s %s (`lovbench export`). Everything below is derived from `%s`; `lovbench validate` checks that the two agree.\n\n", m.Program, orUnknown(m.Version), ManifestFile)

	p("## Motivation\n\n")
	if simulated {
		p("A benchmark for ranking ontology terms (classes and properties) for keyword queries, built the way the LOVBench paper built its benchmark for Linked Open Vocabularies: graded relevance labels inferred from clicks by click models, instead of expert judgments (LOVBench paper, sections 4 and 5); here the clicks are simulated.\n\n")
	} else {
		p("A benchmark for ranking ontology terms (classes and properties) for keyword queries, built the way the LOVBench paper built its benchmark for Linked Open Vocabularies: graded relevance labels inferred from the clicks of a vocabulary search engine's users by click models, instead of expert judgments (LOVBench paper, sections 4 and 5).\n\n")
	}
	if simulated {
		p("**This dataset's search log was simulated, not collected from users.** %s The clicks were drawn from a click model over the corpus, so the labels say what that model prefers, not what people looked for: the dataset tests the pipeline and the rankers' mechanics, and its scores say nothing about real users.\n\n", simulationText(pub))
	}

	p("## Composition\n\n")
	p("- %d (query, term) rows over %d queries, each with %d features", m.Rows, m.Queries, len(m.Features))
	if len(m.Features) > 0 {
		p(" (%s ... %s)", m.Features[0].Name, m.Features[len(m.Features)-1].Name)
	}
	p(" and a graded label.\n")
	p("- Labels (LOVBench paper, Table 4; -2 is junk, written as 0 in the fold files unless exported with junk kept):\n\n")
	p("| label | rows | share |\n|---|---|---|\n")
	for _, l := range m.Labels {
		p("| %d | %d | %.2f%% |\n", l.Label, l.Count, 100*l.Share)
	}
	p("\n")
	cardConfidence(&b, m)
	p("- %d query partitions, dealt by a seeded shuffle:\n\n", len(m.Partitions))
	p("| partition | queries | rows |\n|---|---|---|\n")
	for _, pi := range m.Partitions {
		p("| %d | %d | %d |\n", pi.Partition, pi.Queries, pi.Rows)
	}
	p("\n- Files: `%s` and `%s` (one row per (query, term): %s, then one column per feature), `%s` (TREC qrels), `%s`, and per fold `FoldK/{train,vali,test}.txt` in the RankLib/SVMlight format (`label qid:N 1:v ... # query term`), queries in ascending qid order.\n",
		ParquetFile, ArrowFile, fixedColumnNames(m), QrelsFile, GroundTruthFile)
	p("- `partitions/partition-K.parquet`: the rows of `%s` in partition K, same columns. The configs of the front matter build each fold from them: `FoldK` has the splits train, validation and test of fold K (the partitions of `FoldK/{train,vali,test}.txt`), so that `datasets.load_dataset(\"<this directory or repository>\", \"Fold1\")` gives fold 1; `all` is `%s` whole. `%s` describes the same files in Croissant 1.0.\n\n", ParquetFile, ParquetFile, CroissantFile)

	p("## Collection process\n\n")
	if simulated {
		p("No engine's users took part: the search log was simulated by `lovbench simulate` (%s). The simulated sessions went through the same cleaning as a real log (sessions without clicks and clicks beyond the first result page removed), click models were fitted to them, and each query's first result page was labelled from the predicted satisfaction; LETOR-style sampling added matching but unlabelled terms as non-relevant. The export read:\n\n", orUnknown(pub.Simulation))
	} else {
		p("Search sessions of the engine's log were cleaned (sessions without clicks, queries with personal information and clicks beyond the first result page removed), click models were fitted to them, and each query's first result page was labelled from the predicted satisfaction; LETOR-style sampling added matching but unlabelled terms as non-relevant. The export read:\n\n")
	}
	for _, in := range m.Inputs {
		p("- %s: `%s`, %d rows, SHA-256 `%s`\n", in.Role, in.Name, in.Rows, in.SHA256)
	}
	p("\n")
	if pv := m.Provenance; pv != nil && len(pv.Collection) > 0 {
		p("The log and its cleaning (the ingest report; docs/method.md section 2 names the rules):\n\n")
		facts(&b, pv.Collection)
	}

	p("## Preprocessing\n\n")
	p("- Feature semantics: %s.\n", semanticsText(m.Parameters.FeatureSemantics))
	if fo := m.FeatureOrigin; fo != nil {
		p("- How the features were computed (%s): semantics %s, corpus SHA-256 `%s`, lovbench version %s.\n", fo.Source, orUnknown(string(fo.Semantics)), orUnknown(fo.CorpusSHA256), orUnknown(fo.Version))
	}
	p("- Line order: `%s`: each query's lines are in an order drawn from seed %d that carries no label information.\n", orUnknown(m.Parameters.LineOrder), m.Parameters.Seed)
	p("- Junk labels (-2) kept in the fold files: %v.\n", m.Parameters.KeepJunk)
	if m.UnusedFeatures > 0 {
		p("- %d feature rows had no ground-truth row and were left out.\n", m.UnusedFeatures)
	}
	p("\n")
	if pv := m.Provenance; pv != nil && len(pv.Labelling) > 0 {
		p("Labelling (the click models and the label report):\n\n")
		facts(&b, pv.Labelling)
	}
	if pv := m.Provenance; pv != nil && len(pv.Configuration) > 0 {
		p("The run's configuration:\n\n")
		facts(&b, pv.Configuration)
	}

	p("## Uses\n\n")
	p("Training and evaluating learning-to-rank models with the %d folds (LETOR rotation: fold k trains on three partitions, validates on the next and tests on the last), and comparing them with NDCG@k, MAP and ERR as the LOVBench paper does (section 6). %s\n\n", m.Parameters.Folds, usesLimits(simulated))

	p("## Distribution\n\n")
	p("Licence: `%s` (%s states the terms of each input).\n\n", pub.License(), LicenseFile)
	p("- Search log: %s.\n", pub.logLicenseText())
	p("- Vocabulary corpus: %s.\n\n", pub.corpusLicenseText())
	if simulated {
		p("The queries and clicks are synthetic: the dataset holds no personal data of anyone.\n\n")
	} else {
		p("`lovbench ingest` screens queries for personal data and pseudonymises session identifiers, which are not part of the dataset in any case.\n\n")
	}

	p("## Maintenance\n\n")
	p("Regenerate the dataset from fresh logs with `lovbench run` (same inputs and seed give byte-identical files). `%s` records every input and output with its SHA-256.\n\n", ManifestFile)

	p("## Citation\n\n")
	p("The benchmark follows the LOVBench paper; cite it with the dataset:\n\n")
	p("```bibtex\n%s\n\n%s\n```\n", PaperBibTeX, DatasetBibTeX(m))
	return b.Bytes()
}

// simulationText says how the log was simulated.
func simulationText(p *Publication) string {
	if p == nil || p.Simulation == "" {
		return "It was generated by `lovbench simulate`."
	}
	return "It was generated by `lovbench simulate`: " + p.Simulation + "."
}

// usesLimits is what the data must not be used for (the card's Uses
// section and croissant.json's rai:dataLimitations).
func usesLimits(simulated bool) string {
	s := "The labels are inferred from clicks: they measure what users preferred on the engine's result pages, not expert relevance. Do not use the data to identify, profile or track the engine's users, nor as a judgment of the vocabularies' quality."
	if simulated {
		s = "The labels come from simulated clicks: do not report results on this dataset as evidence about real users or real vocabulary search, only about the method. Do not use the data as a judgment of the vocabularies' quality."
	}
	return s
}

// facts writes a two-column Markdown table of facts, then a blank line.
func facts(b *bytes.Buffer, fs []Fact) {
	b.WriteString("| item | value |\n|---|---|\n")
	for _, f := range fs {
		fmt.Fprintf(b, "| %s | %s |\n", mdCell(f.Name), mdCell(f.Value))
	}
	b.WriteString("\n")
}

// mdCell keeps a value inside one Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "\r", " ").Replace(s)
}

// sizeCategory is the Hugging Face size category of n rows.
func sizeCategory(n int) string {
	switch {
	case n < 1_000:
		return "n<1K"
	case n < 10_000:
		return "1K<n<10K"
	case n < 100_000:
		return "10K<n<100K"
	case n < 1_000_000:
		return "100K<n<1M"
	case n < 10_000_000:
		return "1M<n<10M"
	}
	return "10M<n<100M"
}

func orUnknown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unknown"
	}
	return s
}

// semanticsText names the feature semantics s and says what it computes
// (features.Semantics.Description).
func semanticsText(s string) string {
	if d := features.Semantics(s).Description(); d != "" {
		return s + " (" + d + ")"
	}
	return "not recorded"
}
