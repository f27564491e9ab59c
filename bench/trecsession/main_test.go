package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvert converts two hand-made sessions of topic 1 (one with a
// clicked document clicked twice and a click-less interaction, one whose
// query repeats the first's) and one interaction without results; the
// judgments grade d1 2 and d2 0 for topic 1, d1 1 for topic 2, whose
// session 9 shows d1 for the same query: a conflict, left out.
func TestConvert(t *testing.T) {
	dir := t.TempDir()
	xmlText := `<sessiontrack2014>
 <session num="7" starttime="0">
  <topic num="1"/>
  <interaction num="1" starttime="1">
   <query>Red   apple</query>
   <results>
    <result rank="1"><url>u</url><clueweb12id>d1</clueweb12id></result>
    <result rank="2"><url>u</url><clueweb12id>d2</clueweb12id></result>
   </results>
   <clicked>
    <click num="1"><rank>2</rank></click>
    <click num="2"><rank>2</rank></click>
   </clicked>
  </interaction>
  <interaction num="2" starttime="2">
   <query>apple</query>
   <results><result rank="1"><clueweb12id>d3</clueweb12id></result></results>
  </interaction>
  <interaction num="3" starttime="3"><query>empty</query></interaction>
 </session>
 <session num="8" starttime="0">
  <topic num="1"/>
  <interaction num="1" starttime="1">
   <query>red apple</query>
   <results><result rank="1"><clueweb12id>d1</clueweb12id></result></results>
   <clicked><click num="1"><rank>1</rank></click></clicked>
  </interaction>
 </session>
 <session num="9" starttime="0">
  <topic num="2"/>
  <interaction num="1" starttime="1">
   <query>red apple</query>
   <results><result rank="1"><clueweb12id>d1</clueweb12id></result></results>
  </interaction>
 </session>
</sessiontrack2014>`
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sx := write("s.xml", xmlText)
	jd := write("j.txt", "1 0 d1 2\n1 0 d2 0\n2 0 d1 1\n")
	out := filepath.Join(dir, "out")
	if err := run([]string{sx}, []string{jd}, out, false); err != nil {
		t.Fatal(err)
	}
	wantLog := "1-7\t0\tQ\tred apple\t0\td1\td2\n1-7\t0\tC\td2\n" +
		"1-7\t1\tQ\tapple\t0\td3\n" +
		"1-8\t0\tQ\tred apple\t0\td1\n1-8\t0\tC\td1\n" +
		"1-9\t0\tQ\tred apple\t0\td1\n"
	// d1 under "red apple" is graded 2 by topic 1 and 1 by topic 2:
	// left out.
	wantGrades := "query\tdoc\tgrade\nred apple\td2\t0\n"
	for name, want := range map[string]string{"log.yandex.tsv": wantLog, "grades.tsv": wantGrades} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("%s:\n%s\nwant\n%s", name, b, want)
		}
	}
	if err := run([]string{sx}, []string{write("bad.txt", "1 0 d1 x\n")}, out, false); err == nil {
		t.Error("a grade that is not an integer: no error")
	}
}

// TestConvertTimes: with times, the interaction's and the clicks' start
// times in milliseconds are the TimePassed of the lines (a click at rank 2
// at 5.25 s, then one at rank 1 at 9.5 s: a return up the page, in the
// order the log gives); a start time that is not a number is an error
// naming the interaction.
func TestConvertTimes(t *testing.T) {
	dir := t.TempDir()
	xmlText := `<sessiontrack2013>
 <session num="3" starttime="0">
  <topic num="1"/>
  <interaction num="1" starttime="1.5">
   <query>apple</query>
   <results>
    <result rank="1"><clueweb12id>d1</clueweb12id></result>
    <result rank="2"><clueweb12id>d2</clueweb12id></result>
   </results>
   <clicked>
    <click num="1" starttime="5.25" endtime="9"><rank>2</rank></click>
    <click num="2" starttime="9.5" endtime="12"><rank>1</rank></click>
   </clicked>
  </interaction>
 </session>
</sessiontrack2013>`
	sx := filepath.Join(dir, "s.xml")
	jd := filepath.Join(dir, "j.txt")
	if err := os.WriteFile(sx, []byte(xmlText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jd, []byte("1 0 d1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := run([]string{sx}, []string{jd}, out, true); err != nil {
		t.Fatal(err)
	}
	want := "1-3\t1500\tQ\tapple\t0\td1\td2\n1-3\t5250\tC\td2\n1-3\t9500\tC\td1\n"
	if b, err := os.ReadFile(filepath.Join(out, "log.yandex.tsv")); err != nil || string(b) != want {
		t.Errorf("log.yandex.tsv:\n%s\nwant\n%s (%v)", b, want, err)
	}
	bad := strings.Replace(xmlText, `starttime="9.5"`, `starttime="soon"`, 1)
	if err := os.WriteFile(sx, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{sx}, []string{jd}, filepath.Join(dir, "out2"), true); err == nil || !strings.Contains(err.Error(), "interaction 1") {
		t.Errorf("a click time that is not a number: %v, want an error naming the interaction", err)
	}
}
