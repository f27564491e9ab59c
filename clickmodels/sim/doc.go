// Package sim simulates click logs from click models with known parameters,
// so that the click-model stage of the LOVBench paper (section 4.2,
// "Relevance from clicks") can be checked against a known truth: parameter
// recovery, the calibration of the relevance intervals, and the demo's log
// (lovbench simulate, docs/clickmodels.md "lovbench simulate").
//
// Simulate draws clicks from a model of package clickmodels on SERPs
// supplied by a SERPSource, following each model's generative story
// (Chuklin, Markov and de Rijke, Click Models for Web Search, 2015, chapter
// 3) with the global parameters of DefaultGlobal or Config.Global;
// SimulateYandex writes the log in the Yandex format and SimulateLog keeps
// it in memory. Each returns the truth as a clickmodels.Model.
// SyntheticSource is the built-in source (Zipf query popularity, a pool of
// documents per query, some shuffled SERPs, random true parameters);
// another source, such as package corpussim's, backed by a
// vocabulary corpus and a search engine, only has to implement
// SERPSource's two methods: Next (the query and ranked documents of the
// next SERP, drawn with the simulation's generator) and Truth (the true
// attractiveness and satisfaction of a pair).
//
// The package sits above the EM core: it imports clickmodels, which never
// imports it. A seeded simulation is byte-for-byte reproducible.
package sim
