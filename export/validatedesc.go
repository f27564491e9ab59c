package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lovbench/lovbench/internal/filehash"
	"github.com/lovbench/lovbench/internal/pqfile"
	"github.com/lovbench/lovbench/internal/textio"
)

// checkDescriptions checks the files that describe the data, each when
// the manifest lists it (datasets written before export wrote them have
// none): the card's front matter against the Hub's fields
// (CheckFrontMatter), croissant.json against Croissant 1.0
// (CheckCroissant, its checksums against the files), and that LICENSE.md,
// the card and croissant.json are what export renders of the manifest.
func checkDescriptions(v *Validation, dir string, m *Manifest, listed map[string]bool) {
	for _, d := range descriptions {
		if !listed[d.path] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, d.path))
		if err != nil {
			continue // reported with the checksums
		}
		switch d.path {
		case CardFile:
			for _, p := range CheckFrontMatter(b, dir, m) {
				v.addf("%s", p)
			}
			continue // checkCard compares it with the manifest
		case CroissantFile:
			probs, missing := checkCroissant(b, dir, v.recorded)
			for _, p := range probs {
				v.addf("%s", p)
			}
			v.CroissantMissing = missing
		}
		if !bytes.Equal(b, d.render(m)) {
			v.addf("%s: does not agree with %s (export again to rewrite it)", d.path, ManifestFile)
		}
	}
}

// croissantAtomicTypes are the atomic data types of Croissant 1.0.
var croissantAtomicTypes = []string{
	"sc:Boolean", "sc:Date", "sc:DateTime", "sc:Float", "sc:Integer", "sc:Number", "sc:Text", "sc:Time", "sc:URL",
	"sc:ImageObject", "sc:AudioObject", "sc:VideoObject", "cr:BoundingBox",
}

// CheckCroissant checks croissant.json (b) of the dataset directory dir
// against what the Croissant 1.0 specification requires: the dataset-level
// properties @context, @type (sc:Dataset), conformsTo (its 1.0 URI), name,
// description and license; every cr:FileObject of the distribution with
// @id, name, contentUrl, encodingFormat and sha256, and a local file's
// SHA-256 equal to it; every record set with a unique @id, a name and
// fields that each have an @id, a name and a data type of which one is
// atomic, whose source names a FileObject of the distribution and whose
// references name a field; embedded data keyed by field ids. It returns
// the problems and, apart, the required properties that only publication
// gives (url, creator, datePublished) when they are missing.
func CheckCroissant(b []byte, dir string) (problems, missing []string) {
	return checkCroissant(b, dir, nil)
}

// checkCroissant is CheckCroissant with the manifest's SHA-256 of the files
// it lists, by slash path (nil: none): a file the manifest lists is checked
// against the manifest's checksum (validate checks that one against the
// file), any other against the file itself.
func checkCroissant(b []byte, dir string, recorded map[string]string) (problems, missing []string) {
	bad := func(format string, args ...any) {
		problems = append(problems, CroissantFile+": "+fmt.Sprintf(format, args...))
	}
	var ds map[string]any
	if err := json.Unmarshal(b, &ds); err != nil {
		bad("%v", err)
		return problems, nil
	}
	if _, ok := ds["@context"].(map[string]any); !ok {
		bad("no @context object")
	}
	if t, _ := ds["@type"].(string); t != "sc:Dataset" && t != "https://schema.org/Dataset" && t != "http://schema.org/Dataset" {
		bad("@type %q, want sc:Dataset", t)
	}
	conforms, _ := ds["conformsTo"].(string)
	if conforms == "" {
		conforms, _ = ds["dct:conformsTo"].(string)
	}
	if conforms != CroissantConformsTo {
		bad("conformsTo %q, want %s", conforms, CroissantConformsTo)
	}
	for _, k := range []string{"name", "description"} {
		if s, _ := ds[k].(string); strings.TrimSpace(s) == "" {
			bad("no %s", k)
		}
	}
	if !nonEmpty(ds["license"]) {
		bad("no license")
	}
	for _, k := range []string{"url", "creator", "datePublished"} {
		if !nonEmpty(ds[k]) {
			missing = append(missing, k)
		}
	}
	// Distribution.
	files := map[string]bool{}
	dist, _ := ds["distribution"].([]any)
	if len(dist) == 0 {
		bad("no distribution")
	}
	for i, d := range dist {
		fo, _ := d.(map[string]any)
		id, _ := fo["@id"].(string)
		switch t, _ := fo["@type"].(string); t {
		case "cr:FileSet":
			files[id] = true
			continue
		case "cr:FileObject":
		default:
			bad("distribution[%d] %s: @type %q, want cr:FileObject or cr:FileSet", i, id, t)
			continue
		}
		if id == "" {
			bad("distribution[%d]: no @id", i)
			continue
		}
		if files[id] {
			bad("distribution: @id %s appears twice", id)
		}
		files[id] = true
		for _, k := range []string{"name", "contentUrl", "encodingFormat", "sha256"} {
			if s, _ := fo[k].(string); s == "" {
				bad("file %s: no %s", id, k)
			}
		}
		url, _ := fo["contentUrl"].(string)
		want, _ := fo["sha256"].(string)
		if url == "" || strings.Contains(url, "://") || want == "" {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(url)) {
			bad("file %s: contentUrl %s leaves the dataset directory", id, textio.Quote(url))
			continue
		}
		if rec, ok := recorded[url]; ok {
			if rec != want {
				bad("file %s: SHA-256 %s (manifest.json), croissant.json says %s", id, rec, want)
			}
			continue
		}
		sum, err := filehash.SHA256(filepath.Join(dir, filepath.FromSlash(url)))
		switch {
		case err != nil:
			bad("file %s: %v", id, err)
		case sum != want:
			bad("file %s: SHA-256 %s, croissant.json says %s", id, sum, want)
		}
	}
	// Record sets.
	rss, _ := ds["recordSet"].([]any)
	fieldIDs := map[string]bool{}
	type ref struct{ from, to string }
	var refs []ref
	seen := map[string]bool{}
	for i, r := range rss {
		rs, _ := r.(map[string]any)
		id, _ := rs["@id"].(string)
		if t, _ := rs["@type"].(string); t != "cr:RecordSet" {
			bad("recordSet[%d] %s: @type %q, want cr:RecordSet", i, id, t)
		}
		if id == "" || seen[id] {
			bad("recordSet[%d]: @id %q missing or not unique", i, id)
		}
		seen[id] = true
		if s, _ := rs["name"].(string); s == "" {
			bad("record set %s: no name", id)
		}
		fields, _ := rs["field"].([]any)
		if len(fields) == 0 {
			bad("record set %s: no field", id)
		}
		own := map[string]bool{}
		for j, f := range fields {
			fm, _ := f.(map[string]any)
			fid, _ := fm["@id"].(string)
			if t, _ := fm["@type"].(string); t != "cr:Field" {
				bad("record set %s: field[%d] %s: @type %q, want cr:Field", id, j, fid, t)
			}
			if fid == "" || fieldIDs[fid] {
				bad("record set %s: field[%d]: @id %q missing or not unique", id, j, fid)
			}
			fieldIDs[fid], own[fid] = true, true
			if s, _ := fm["name"].(string); s == "" {
				bad("field %s: no name", fid)
			}
			types := stringList(fm["dataType"])
			if !slices.ContainsFunc(types, func(t string) bool { return slices.Contains(croissantAtomicTypes, t) }) {
				bad("field %s: data type %v has no atomic Croissant type (sc:Text, sc:Integer, sc:Float, ...)", fid, types)
			}
			if src, ok := fm["source"].(map[string]any); ok {
				from := ""
				for _, k := range []string{"fileObject", "fileSet"} {
					if o, ok := src[k].(map[string]any); ok {
						from, _ = o["@id"].(string)
					}
				}
				if !files[from] {
					bad("field %s: source %q is not a file of the distribution", fid, from)
				}
			}
			if r, ok := fm["references"]; ok {
				// Croissant's form, which mlcroissant reads:
				// {"field": {"@id": ...}} (or fileObject, fileSet,
				// recordSet); a bare {"@id": ...} makes it fail.
				rm, _ := r.(map[string]any)
				f, _ := rm["field"].(map[string]any)
				if to, ok := f["@id"].(string); ok {
					refs = append(refs, ref{fid, to})
				} else {
					bad(`field %s: references %v, want {"field": {"@id": ...}}`, fid, mustMarshal(r))
				}
			}
		}
		data, _ := rs["data"].([]any)
		for k, d := range data {
			dm, _ := d.(map[string]any)
			for key := range dm {
				if !own[key] {
					bad("record set %s: data[%d]: %q is not a field of the record set", id, k, key)
				}
			}
		}
	}
	if len(rss) == 0 {
		bad("no recordSet")
	}
	for _, r := range refs {
		if !fieldIDs[r.to] {
			bad("field %s references %q, which is no field", r.from, r.to)
		}
	}
	return problems, missing
}

// nonEmpty tells whether a JSON value is present and not empty.
func nonEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return strings.TrimSpace(x) != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// validatePartitions checks the partition files the manifest lists
// (PartitionFile): each holds, column for column and in order, the rows of
// dataset.parquet in its partition, with its schema: the same physical
// types and the same optional (nullable) columns, null where
// dataset.parquet is null (a reader that loads one fold and one that loads
// the whole dataset must agree). Datasets written before export wrote them
// list none.
func validatePartitions(v *Validation, dir string, m *Manifest) {
	listed := map[string]bool{}
	for _, o := range m.Outputs {
		listed[o.Path] = true
	}
	if !listed[PartitionFile(1)] {
		return
	}
	full, err := pqfile.ReadFile(filepath.Join(dir, ParquetFile))
	if err != nil {
		return // reported with the rows
	}
	var part []int32
	for _, c := range full.Columns {
		if c.Name == "partition" {
			part = c.Int32s
		}
	}
	for p := 1; p <= m.Parameters.Folds; p++ {
		rel := PartitionFile(p)
		if !listed[rel] {
			v.addf("manifest does not list %s", rel)
			continue
		}
		var idx []int
		for i, x := range part {
			if int(x) == p {
				idx = append(idx, i)
			}
		}
		t, err := pqfile.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			v.addf("%s: %v", rel, err)
			continue
		}
		if !slices.Equal(t.Names(), full.Names()) {
			v.addf("%s: columns %v, %s has %v", rel, t.Names(), ParquetFile, full.Names())
			continue
		}
		if t.Rows != len(idx) {
			v.addf("%s: %d rows, %s has %d in partition %d", rel, t.Rows, ParquetFile, len(idx), p)
			continue
		}
		for c, col := range t.Columns {
			fc := full.Columns[c]
			if col.Physical != fc.Physical || col.Optional != fc.Optional {
				v.addf("%s: column %s is %s, %s has %s", rel, col.Name, columnSchema(col), ParquetFile, columnSchema(fc))
				continue
			}
			same := true
			for i, j := range idx {
				if !same {
					break
				}
				if isNull(col, i) != isNull(fc, j) {
					same = false
					break
				}
				switch {
				case col.Strings != nil:
					same = col.Strings[i] == fc.Strings[j]
				case col.Float64s != nil:
					same = col.Float64s[i] == fc.Float64s[j] || col.Float64s[i] != col.Float64s[i] && fc.Float64s[j] != fc.Float64s[j]
				}
			}
			if !same {
				v.addf("%s: column %s differs from the rows of partition %d in %s", rel, col.Name, p, ParquetFile)
			}
		}
	}
}

// columnSchema describes a column's Parquet type for validate's problems:
// its physical type and whether it is optional or required.
func columnSchema(c pqfile.ReadColumn) string {
	if c.Optional {
		return "optional " + c.Physical
	}
	return "required " + c.Physical
}

// isNull tells whether row i of c is null.
func isNull(c pqfile.ReadColumn, i int) bool { return c.Null != nil && c.Null[i] }

// CroissantNote is the note validate prints for the Croissant properties
// only publication gives ("" when none is missing).
func CroissantNote(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("croissant.json lacks %s, which Croissant 1.0 requires of a published dataset; export again with --url, --creator and --date-published (run configuration: export.url, export.creator, export.date_published) to publish it", strings.Join(missing, ", "))
}

// mustMarshal is v as compact JSON, for a problem message.
func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
