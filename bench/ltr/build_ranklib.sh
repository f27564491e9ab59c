#!/usr/bin/env bash
# Build a RankLib jar for the RankLib agreement test (ltr/ranklib_agree_test.go).
#
# usage: build_ranklib.sh RANKLIB_SRC OUT_DIR
#
# RANKLIB_SRC holds RankLib's java/ tree (2.x, package ciir.umass.edu).
# Compiles it with javac into OUT_DIR/classes and writes OUT_DIR/RankLib.jar
# (main class ciir.umass.edu.eval.Evaluator). RankLib's one runtime
# dependency, commons-math3, is used only by FeatureStats (FeatureManager
# -feature_stats); when no commons-math3 jar is found (COMMONS_MATH3_JAR, or
# Debian's libcommons-math3-java) that class is replaced by a stub that
# fails, which training and scoring never reach.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '4,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
src=$1 out=$2
mkdir -p "$out/classes" "$out/src"
cp -r "$src/java/." "$out/src/"
jar=${COMMONS_MATH3_JAR:-}
if [ -z "$jar" ] && command -v dpkg >/dev/null; then
	jar=$(dpkg -L libcommons-math3-java 2>/dev/null | grep '/commons-math3\.jar$' | head -n 1 || true)
fi
cp=()
if [ -n "$jar" ]; then
	cp=(-cp "$jar")
else
	cat >"$out/src/ciir/umass/edu/features/FeatureStats.java" <<'JAVA'
package ciir.umass.edu.features;

/** Stub: built without commons-math3, so -feature_stats is unavailable. */
public class FeatureStats {
    public FeatureStats(final String modelFileName) {
    }

    public void writeFeatureStats() {
        throw new UnsupportedOperationException("RankLib built without commons-math3: no -feature_stats");
    }
}
JAVA
fi
find "$out/src" -name '*.java' >"$out/sources.txt"
javac -nowarn -encoding UTF-8 "${cp[@]}" -d "$out/classes" @"$out/sources.txt" 2>&1 | grep -v '^Note:' >&2 || true
[ -f "$out/classes/ciir/umass/edu/eval/Evaluator.class" ] || { echo "build_ranklib.sh: javac failed" >&2; exit 1; }
(cd "$out/classes" && jar cfe ../RankLib.jar ciir.umass.edu.eval.Evaluator ciir)
echo "$out/RankLib.jar"
