package ltr

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lovbench/lovbench/internal/atomicfile"
)

// RankLib's text model files (RankLib 2.x, Ranker.model() and
// RankerFactory.loadRankerFromString), read and written on top of Model.
// The formats, as RankLib writes them (see docs/ltr.md, "RankLib model
// files"):
//
//   - The first line is "## " and the ranker's name: "## LambdaMART",
//     "## Coordinate Ascent", "## AdaRank", "## RankNet". Further lines
//     starting with "##" are free-form parameters that RankLib ignores when
//     loading; lovbench writes its own there and reads back one of them,
//     "## Normalization = NAME".
//   - LambdaMART: an XML ensemble, <ensemble><tree id=".." weight=".."> and
//     one <split> per node: an internal node holds <feature>fid</feature>,
//     <threshold>t</threshold> and two child <split>s, left then right (a
//     document goes left when its value <= t); a leaf holds <output>v
//     </output>. A document's score is the sum over trees of weight * the
//     output of the leaf it reaches. RankLib writes weight = its learning
//     rate and raw leaf outputs; lovbench's leaf values include the
//     learning rate, so lovbench writes weight 1.
//   - Coordinate Ascent and AdaRank: one line "fid:weight fid:weight ...";
//     the score is the sum of weight * value (AdaRank lists one pair per
//     round, so a fid may repeat).
//   - RankNet: a line of feature ids, a line with the number of hidden
//     layers, one line per hidden layer with its size, then for every
//     neuron of every layer but the output "layer neuron w w ...", the
//     weights of its outgoing links in RankLib's wiring order: input k to
//     hidden units 0..H-1; the bias neuron (input index d) to hidden units
//     0..H-1 and then to the output; hidden unit j to the output. Units are
//     logistic sigmoids.

// RankLib ranker names, as on the first line of a model file.
const (
	rankLibLambdaMART = "LambdaMART"
	rankLibCA         = "Coordinate Ascent"
	rankLibAdaRank    = "AdaRank"
	rankLibRankNet    = "RankNet"
)

// rankLibFirstLines is the expected-format phrase of error messages.
const rankLibFirstLines = `"## LambdaMART", "## Coordinate Ascent", "## AdaRank" or "## RankNet"`

// maxTreeDepth bounds the nesting of <split> elements read from a file.
const maxTreeDepth = 10000

// ModelFileFormat names a model file format of `lovbench ltr --model-format`.
type ModelFileFormat string

// The model file formats.
const (
	// ModelFileJSON is lovbench's JSON (ModelFormat), <name>.json.
	ModelFileJSON ModelFileFormat = "json"
	// ModelFileRankLib is RankLib's text format, <name>.ranklib.txt.
	ModelFileRankLib ModelFileFormat = "ranklib"
)

// ParseModelFileFormats parses a comma-separated list of json and ranklib
// (at least one, each at most once).
func ParseModelFileFormats(s string) ([]ModelFileFormat, error) {
	var out []ModelFileFormat
	for _, p := range strings.Split(s, ",") {
		f := ModelFileFormat(strings.ToLower(strings.TrimSpace(p)))
		if f != ModelFileJSON && f != ModelFileRankLib {
			return nil, fmt.Errorf("unknown model format %q (want json, ranklib or json,ranklib)", p)
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("model format %q given twice", p)
		}
		out = append(out, f)
	}
	return out, nil
}

// Extension is the file name suffix of the format: ".json" or
// ".ranklib.txt".
func (f ModelFileFormat) Extension() string {
	if f == ModelFileRankLib {
		return ".ranklib.txt"
	}
	return ".json"
}

// SaveModelAs writes m to base+f.Extension() atomically in format f.
func SaveModelAs(base string, m *Model, f ModelFileFormat) error {
	if f == ModelFileRankLib {
		return atomicfile.WriteFile(base+f.Extension(), m.WriteRankLib)
	}
	return SaveModel(base+f.Extension(), m)
}

// saveModelFiles writes m to base plus the extension of each of
// opt.ModelFormats (JSON when none is given).
func saveModelFiles(opt ExperimentOptions, base string, m *Model) error {
	formats := opt.ModelFormats
	if len(formats) == 0 {
		formats = []ModelFileFormat{ModelFileJSON}
	}
	for _, f := range formats {
		if err := SaveModelAs(base, m, f); err != nil {
			return err
		}
	}
	return nil
}

// rankLibName is the RankLib ranker whose file format holds m.
func (m *Model) rankLibName() (string, error) {
	switch {
	case m.Trees != nil:
		return rankLibLambdaMART, nil
	case m.RankNet != nil:
		return rankLibRankNet, nil
	case m.Linear != nil && m.Algorithm == AdaRank:
		return rankLibAdaRank, nil
	case m.Linear != nil:
		return rankLibCA, nil
	}
	return "", fmt.Errorf("model has no ranknet, linear or trees part")
}

// fmtNum formats v in the shortest form that parses back to the same
// float64; Java's Double.parseDouble and Float.parseFloat read it.
func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// WriteRankLib writes m in RankLib 2.x's text model format (see the file
// comment above and docs/ltr.md): trees as LambdaMART, RankNet weights as
// RankNet, AdaRank's terms as AdaRank and other linear models (Coordinate
// Ascent, the baseline) as Coordinate Ascent. The per-query normalisation
// is recorded in a "## Normalization = NAME" line; RankLib does not store
// it, so score with RankLib's -norm NAME (none: no -norm).
func (m *Model) WriteRankLib(w io.Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := m.checkFinite(); err != nil {
		return err
	}
	name, err := m.rankLibName()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## %s\n", name)
	fmt.Fprintf(bw, "## Written by lovbench from %s (algorithm %s)\n", ModelFormat, m.Algorithm)
	norm := m.Normalization
	if norm == "" {
		norm = NormNone
	}
	if norm == NormNone {
		fmt.Fprintf(bw, "## Normalization = none (score with RankLib without -norm)\n")
	} else {
		fmt.Fprintf(bw, "## Normalization = %s (score with RankLib's -norm %s)\n", norm, norm)
	}
	if m.Metric != "" {
		fmt.Fprintf(bw, "## Metric = %s, train = %s, validation = %s, iterations = %d, seed = %d\n",
			m.Metric, fmtNum(m.TrainScore), fmtNum(m.ValidationScore), m.Iterations, m.Seed)
	}
	switch name {
	case rankLibLambdaMART:
		fmt.Fprintf(bw, "## No. of trees = %d\n", len(m.Trees))
		fmt.Fprintf(bw, "## Leaf outputs include the learning rate; every tree has weight 1\n\n")
		bw.WriteString("<ensemble>\n")
		for ti := range m.Trees {
			fmt.Fprintf(bw, "\t<tree id=\"%d\" weight=\"1\">\n", ti+1)
			bw.WriteString("\t\t<split>\n")
			m.writeRankLibNode(bw, &m.Trees[ti], 0, "\t\t\t")
			bw.WriteString("\t\t</split>\n")
			bw.WriteString("\t</tree>\n")
		}
		bw.WriteString("</ensemble>\n")
	case rankLibCA, rankLibAdaRank:
		if len(m.Linear) == 0 {
			return fmt.Errorf("%s model has no weights; RankLib cannot load an empty weight line", m.Algorithm)
		}
		for i, t := range m.Linear {
			if i > 0 {
				bw.WriteByte(' ')
			}
			fmt.Fprintf(bw, "%d:%s", m.Features[t.Column], fmtNum(t.Weight))
		}
		bw.WriteByte('\n')
	case rankLibRankNet:
		d, H := len(m.Features), len(m.RankNet.Hidden)
		fmt.Fprintf(bw, "## Epochs = %d\n## No. of features = %d\n## No. of hidden layers = 1\n## Layer 1: %d neurons\n", m.Iterations, d, H)
		for j, f := range m.Features {
			if j > 0 {
				bw.WriteByte(' ')
			}
			bw.WriteString(strconv.Itoa(f))
		}
		fmt.Fprintf(bw, "\n1\n%d\n", H)
		for k := 0; k <= d; k++ { // input neurons, then the bias neuron (index d)
			fmt.Fprintf(bw, "0 %d", k)
			for h := 0; h < H; h++ {
				bw.WriteString(" " + fmtNum(m.RankNet.Hidden[h][k]))
			}
			if k == d {
				bw.WriteString(" " + fmtNum(m.RankNet.Output[H]))
			}
			bw.WriteByte('\n')
		}
		for h := 0; h < H; h++ {
			fmt.Fprintf(bw, "1 %d %s\n", h, fmtNum(m.RankNet.Output[h]))
		}
	}
	return bw.Flush()
}

// writeRankLibNode writes the content of node i's <split> element.
func (m *Model) writeRankLibNode(bw *bufio.Writer, t *Tree, i int, indent string) {
	n := &t.Nodes[i]
	if n.Column < 0 {
		fmt.Fprintf(bw, "%s<output>%s </output>\n", indent, fmtNum(n.Value))
		return
	}
	fmt.Fprintf(bw, "%s<feature>%d </feature>\n", indent, m.Features[n.Column])
	fmt.Fprintf(bw, "%s<threshold> %s </threshold>\n", indent, fmtNum(n.Threshold))
	fmt.Fprintf(bw, "%s<split pos=\"left\">\n", indent)
	m.writeRankLibNode(bw, t, n.Left, indent+"\t")
	fmt.Fprintf(bw, "%s</split>\n", indent)
	fmt.Fprintf(bw, "%s<split pos=\"right\">\n", indent)
	m.writeRankLibNode(bw, t, n.Right, indent+"\t")
	fmt.Fprintf(bw, "%s</split>\n", indent)
}

// rankLibError is a problem in a RankLib model file: the file, the line
// (0 when unknown) and the ranker whose format was expected.
type rankLibError struct {
	name   string
	line   int
	ranker string
	msg    string
}

func (e *rankLibError) Error() string {
	where := e.name
	if e.line > 0 {
		where = fmt.Sprintf("%s:%d", e.name, e.line)
	}
	return fmt.Sprintf("%s: RankLib %s model: %s", where, e.ranker, e.msg)
}

// ReadRankLibModel parses a RankLib 2.x text model (LambdaMART, Coordinate
// Ascent, AdaRank or RankNet with one hidden layer) into a Model that
// scores documents as RankLib does: tree thresholds, outputs and weights
// are read as float32 (Float.parseFloat) and the trees' sum is accumulated
// in float32 (see Tree and docs/ltr.md). The normalisation is read from a "## Normalization = NAME"
// line (written by WriteRankLib), else it is none, RankLib's default.
// name is used in error messages, which name the format expected.
func ReadRankLibModel(r io.Reader, name string) (*Model, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return readRankLib(b, name)
}

type textLine struct {
	no   int
	text string // trimmed
}

func readRankLib(b []byte, name string) (*Model, error) {
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	first := strings.TrimSpace(lines[0])
	head, ok := strings.CutPrefix(first, "##")
	if !ok {
		return nil, fmt.Errorf("%s:1: not a RankLib model: the first line must be %s", name, rankLibFirstLines)
	}
	var ranker string
	for _, r := range []string{rankLibLambdaMART, rankLibCA, rankLibAdaRank, rankLibRankNet} {
		if strings.EqualFold(strings.TrimSpace(head), r) {
			ranker = r
		}
	}
	if ranker == "" {
		return nil, fmt.Errorf("%s:1: RankLib model of ranker %q: lovbench reads %s", name, strings.TrimSpace(head), rankLibFirstLines)
	}
	m := &Model{Format: ModelFormat, Normalization: NormNone}
	var body []textLine
	for i, l := range lines[1:] {
		t := strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(t, "##"); ok {
			if v, ok := strings.CutPrefix(strings.TrimSpace(rest), "Normalization ="); ok {
				f := strings.Fields(v)
				if len(f) == 0 {
					return nil, &rankLibError{name, i + 2, ranker, "\"## Normalization =\" without a name"}
				}
				n, err := ParseNormalization(f[0])
				if err != nil {
					return nil, &rankLibError{name, i + 2, ranker, err.Error()}
				}
				m.Normalization = n
			}
			continue
		}
		if t == "" {
			continue
		}
		if ranker == rankLibLambdaMART && strings.HasPrefix(t, "#") {
			continue // RankLib's ModelLineProducer skips every '#' line
		}
		body = append(body, textLine{i + 2, t})
	}
	var err error
	switch ranker {
	case rankLibLambdaMART:
		m.Algorithm = LambdaMART
		err = readRankLibEnsemble(m, body, name)
	case rankLibCA, rankLibAdaRank:
		m.Algorithm = CoordAscent
		if ranker == rankLibAdaRank {
			m.Algorithm = AdaRank
		}
		err = readRankLibLinear(m, body, name, ranker)
	case rankLibRankNet:
		m.Algorithm = RankNet
		err = readRankLibRankNet(m, body, name)
	}
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, &rankLibError{name, 0, ranker, err.Error()}
	}
	return m, nil
}

// parseFID parses a positive feature id.
func parseFID(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 1 || v > maxFeatureID {
		return 0, fmt.Errorf("feature id %q is not an integer from 1 to %d", s, maxFeatureID)
	}
	return v, nil
}

// parseNum parses a finite number (Java's toString forms such as 1.0E-5
// included).
func parseNum(what, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %q is not a finite number", what, s)
	}
	return v, nil
}

// parseNum32 parses a finite number rounded to float32, as RankLib's
// Float.parseFloat reads tree thresholds, outputs and weights.
func parseNum32(what, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %q is not a finite number in float32 range", what, s)
	}
	return v, nil
}

// columnOf returns the column of feature fid in m.Features, adding it.
func columnOf(m *Model, index map[int]int, fid int) int {
	c, ok := index[fid]
	if !ok {
		c = len(m.Features)
		index[fid] = c
		m.Features = append(m.Features, fid)
	}
	return c
}

func readRankLibLinear(m *Model, body []textLine, name, ranker string) error {
	if len(body) == 0 {
		return &rankLibError{name, 0, ranker, "no weight line (want \"fid:weight fid:weight ...\" after the ## lines)"}
	}
	if len(body) > 1 {
		return &rankLibError{name, body[1].no, ranker, "unexpected line after the weight line"}
	}
	l := body[0]
	text := l.text
	if i := strings.LastIndexByte(text, '#'); i >= 0 { // RankLib's KeyValuePair drops a trailing comment
		text = text[:i]
	}
	index := map[int]int{}
	for j, tok := range strings.Fields(text) {
		k, v, ok := strings.Cut(tok, ":")
		if !ok {
			return &rankLibError{name, l.no, ranker, fmt.Sprintf("pair %d %q: want fid:weight", j+1, tok)}
		}
		fid, err := parseFID(k)
		if err != nil {
			return &rankLibError{name, l.no, ranker, fmt.Sprintf("pair %d: %v", j+1, err)}
		}
		w, err := parseNum("weight", v)
		if err != nil {
			return &rankLibError{name, l.no, ranker, fmt.Sprintf("pair %d: %v", j+1, err)}
		}
		m.Linear = append(m.Linear, LinearTerm{Column: columnOf(m, index, fid), Weight: w})
	}
	if len(m.Linear) == 0 {
		return &rankLibError{name, l.no, ranker, "empty weight line"}
	}
	m.Iterations = len(m.Linear)
	return nil
}

func readRankLibRankNet(m *Model, body []textLine, name string) error {
	bad := func(no int, format string, a ...any) error {
		return &rankLibError{name, no, rankLibRankNet, fmt.Sprintf(format, a...)}
	}
	if len(body) < 3 {
		return bad(0, "want a feature-id line, the number of hidden layers, the layer sizes and the weights; file has %d data lines", len(body))
	}
	for _, f := range strings.Fields(body[0].text) {
		fid, err := parseFID(f)
		if err != nil {
			return bad(body[0].no, "feature line: %v", err)
		}
		m.Features = append(m.Features, fid)
	}
	d := len(m.Features)
	if d == 0 {
		return bad(body[0].no, "no feature ids")
	}
	if body[1].text != "1" {
		return bad(body[1].no, "%q hidden layers: lovbench reads RankNet models with exactly 1 hidden layer (RankLib's default)", body[1].text)
	}
	H, err := strconv.Atoi(body[2].text)
	if err != nil || H < 1 || H > 1<<16 {
		return bad(body[2].no, "hidden layer size %q is not an integer from 1 to 65536", body[2].text)
	}
	w := &RankNetWeights{Hidden: make([][]float64, H), Output: make([]float64, H+1)}
	for h := range w.Hidden {
		w.Hidden[h] = make([]float64, d+1)
	}
	seen0, seen1 := make([]bool, d+1), make([]bool, H)
	for _, l := range body[3:] {
		f := strings.Fields(l.text)
		if len(f) < 2 {
			return bad(l.no, "want \"layer neuron weight ...\"")
		}
		layer, neuron := f[0], f[1]
		var j int
		switch layer {
		case "0":
			j, err = strconv.Atoi(neuron)
			if err != nil || j < 0 || j > d {
				return bad(l.no, "input neuron %q out of range 0..%d (%d features and the bias)", neuron, d, d)
			}
			want := H
			if j == d {
				want = H + 1 // the bias feeds the hidden units and the output
			}
			if len(f)-2 != want {
				return bad(l.no, "input neuron %d has %d weights, want %d", j, len(f)-2, want)
			}
			if seen0[j] {
				return bad(l.no, "input neuron %d listed twice", j)
			}
			seen0[j] = true
			for h := 0; h < want; h++ {
				v, err := parseNum("weight", f[2+h])
				if err != nil {
					return bad(l.no, "%v", err)
				}
				if h < H {
					w.Hidden[h][j] = v
				} else {
					w.Output[H] = v
				}
			}
		case "1":
			j, err = strconv.Atoi(neuron)
			if err != nil || j < 0 || j >= H {
				return bad(l.no, "hidden neuron %q out of range 0..%d", neuron, H-1)
			}
			if len(f) != 3 {
				return bad(l.no, "hidden neuron %d has %d weights, want 1 (to the output)", j, len(f)-2)
			}
			if seen1[j] {
				return bad(l.no, "hidden neuron %d listed twice", j)
			}
			seen1[j] = true
			v, err := parseNum("weight", f[2])
			if err != nil {
				return bad(l.no, "%v", err)
			}
			w.Output[j] = v
		default:
			return bad(l.no, "layer %q: want 0 (input) or 1 (hidden)", layer)
		}
	}
	for j, ok := range seen0 {
		if !ok {
			return bad(0, "no weights for input neuron %d", j)
		}
	}
	for j, ok := range seen1 {
		if !ok {
			return bad(0, "no weights for hidden neuron %d", j)
		}
	}
	m.RankNet = w
	return nil
}

// xmlReader walks the tokens of a LambdaMART ensemble.
type xmlReader struct {
	dec    *xml.Decoder
	name   string
	offset []int // byte offset in the joined body where each body line starts
	lines  []int // the file line of each body line
}

func (x *xmlReader) fail(format string, a ...any) error {
	line := 0
	off := int(x.dec.InputOffset())
	for i, o := range x.offset {
		if o <= off {
			line = x.lines[i]
		}
	}
	return &rankLibError{x.name, line, rankLibLambdaMART, fmt.Sprintf(format, a...)}
}

// next returns the next start or end element, skipping whitespace,
// comments and processing instructions.
func (x *xmlReader) next() (xml.Token, error) {
	for {
		tok, err := x.dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, x.fail("the XML ends early")
			}
			return nil, x.fail("XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement, xml.EndElement:
			return xml.CopyToken(t), nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, x.fail("unexpected text %q", truncate(string(t)))
			}
		}
	}
}

func truncate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// expectStart reads the next element, which must start <name>.
func (x *xmlReader) expectStart(name string) (xml.StartElement, error) {
	tok, err := x.next()
	if err != nil {
		return xml.StartElement{}, err
	}
	s, ok := tok.(xml.StartElement)
	if !ok || s.Name.Local != name {
		return xml.StartElement{}, x.fail("want <%s>, found %s", name, describe(tok))
	}
	return s, nil
}

// expectEnd reads the next element, which must end </name>.
func (x *xmlReader) expectEnd(name string) error {
	tok, err := x.next()
	if err != nil {
		return err
	}
	if e, ok := tok.(xml.EndElement); !ok || e.Name.Local != name {
		return x.fail("want </%s>, found %s", name, describe(tok))
	}
	return nil
}

func describe(tok xml.Token) string {
	switch t := tok.(type) {
	case xml.StartElement:
		return "<" + t.Name.Local + ">"
	case xml.EndElement:
		return "</" + t.Name.Local + ">"
	}
	return "something else"
}

// text reads the character data of the element just started, up to its
// end tag.
func (x *xmlReader) text(name string) (string, error) {
	var sb strings.Builder
	for {
		tok, err := x.dec.Token()
		if err != nil {
			return "", x.fail("in <%s>: %v", name, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.EndElement:
			if t.Name.Local != name {
				return "", x.fail("want </%s>, found </%s>", name, t.Name.Local)
			}
			return strings.TrimSpace(sb.String()), nil
		case xml.StartElement:
			return "", x.fail("unexpected <%s> inside <%s>", t.Name.Local, name)
		}
	}
}

func readRankLibEnsemble(m *Model, body []textLine, name string) error {
	// RankLib joins the lines that do not start with '#' (trimmed) and
	// parses the result as XML.
	var joined strings.Builder
	x := &xmlReader{name: name}
	for _, l := range body {
		x.offset = append(x.offset, joined.Len())
		x.lines = append(x.lines, l.no)
		joined.WriteString(l.text)
		joined.WriteByte('\n')
	}
	x.dec = xml.NewDecoder(strings.NewReader(joined.String()))
	if _, err := x.expectStart("ensemble"); err != nil {
		return err
	}
	index := map[int]int{}
	for {
		tok, err := x.next()
		if err != nil {
			return err
		}
		if e, ok := tok.(xml.EndElement); ok && e.Name.Local == "ensemble" {
			break
		}
		s, ok := tok.(xml.StartElement)
		if !ok || s.Name.Local != "tree" {
			return x.fail("want <tree> or </ensemble>, found %s", describe(tok))
		}
		weight := math.NaN()
		for _, a := range s.Attr {
			if a.Name.Local == "weight" {
				if weight, err = parseNum32("tree weight", a.Value); err != nil {
					return x.fail("%v", err)
				}
			}
		}
		if math.IsNaN(weight) {
			return x.fail("<tree> %d has no weight attribute", len(m.Trees)+1)
		}
		if _, err := x.expectStart("split"); err != nil {
			return err
		}
		var t Tree
		if _, err := x.split(m, &t, index, weight, 1); err != nil {
			return err
		}
		if err := x.expectEnd("tree"); err != nil {
			return err
		}
		m.Trees = append(m.Trees, t)
	}
	for {
		tok, err := x.dec.Token()
		if err != nil {
			break
		}
		if c, ok := tok.(xml.CharData); ok && len(bytes.TrimSpace(c)) == 0 {
			continue
		}
		if _, ok := tok.(xml.Comment); ok {
			continue
		}
		return x.fail("unexpected content after </ensemble>")
	}
	if len(m.Trees) == 0 {
		return x.fail("the ensemble has no trees")
	}
	m.Iterations = len(m.Trees)
	return nil
}

// split reads the content of a <split> element (already started) into t
// in pre-order and returns its node index.
func (x *xmlReader) split(m *Model, t *Tree, index map[int]int, weight float64, depth int) (int, error) {
	if depth > maxTreeDepth {
		return 0, x.fail("trees nested deeper than %d", maxTreeDepth)
	}
	i := len(t.Nodes)
	t.Nodes = append(t.Nodes, TreeNode{})
	s, err := x.next()
	if err != nil {
		return 0, err
	}
	st, ok := s.(xml.StartElement)
	if !ok {
		return 0, x.fail("empty <split>: want <feature> or <output>")
	}
	switch st.Name.Local {
	case "output":
		v, err := x.text("output")
		if err != nil {
			return 0, err
		}
		out, err := parseNum32("leaf output", v)
		if err != nil {
			return 0, x.fail("%v", err)
		}
		// RankLib: float output times float weight, in float64 (exact).
		t.Nodes[i] = TreeNode{Column: -1, Value: out * weight}
	case "feature":
		v, err := x.text("feature")
		if err != nil {
			return 0, err
		}
		fid, err := parseFID(v)
		if err != nil {
			return 0, x.fail("%v", err)
		}
		if _, err := x.expectStart("threshold"); err != nil {
			return 0, err
		}
		v, err = x.text("threshold")
		if err != nil {
			return 0, err
		}
		thr, err := parseNum32("threshold", v)
		if err != nil {
			return 0, x.fail("%v", err)
		}
		var child [2]int
		for c, want := range []string{"left", "right"} {
			st, err := x.expectStart("split")
			if err != nil {
				return 0, err
			}
			for _, a := range st.Attr {
				if a.Name.Local == "pos" && a.Value != want {
					return 0, x.fail("child %d of a split has pos=%q, want %q (RankLib takes the first child as left)", c+1, a.Value, want)
				}
			}
			if child[c], err = x.split(m, t, index, weight, depth+1); err != nil {
				return 0, err
			}
		}
		t.Nodes[i] = TreeNode{Column: columnOf(m, index, fid), Threshold: thr, Left: child[0], Right: child[1]}
	default:
		return 0, x.fail("want <feature> or <output> in a <split>, found <%s>", st.Name.Local)
	}
	if err := x.expectEnd("split"); err != nil {
		return 0, err
	}
	return i, nil
}

// readAnyModel reads a lovbench JSON model or a RankLib text model,
// telling them apart by the first non-blank character ('{' or '#').
func readAnyModel(b []byte, name string) (*Model, error) {
	t := bytes.TrimLeft(b, " \t\r\n\ufeff")
	switch {
	case len(t) > 0 && t[0] == '{':
		m, err := ReadModel(bytes.NewReader(b), name)
		if err != nil {
			return nil, fmt.Errorf("%w (read as a lovbench JSON model, %s)", err, ModelFormat)
		}
		return m, nil
	case len(t) > 0 && t[0] == '#':
		return readRankLib(b, name)
	}
	return nil, fmt.Errorf("%s: not a model file: want a lovbench JSON model (%s, starting with '{') or a RankLib text model (first line %s)", name, ModelFormat, rankLibFirstLines)
}
