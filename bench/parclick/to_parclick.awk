# to_parclick.awk: rewrites a click log in the Yandex relevance-prediction
# format (what lovbench simulate writes and lovbench fit --log reads) into the
# form ParClick's parser accepts. See bench/parclick/README.md.
#
#   query line:  SessionID TimePassed Q QueryID RegionID URL_1 ... URL_10
#   click line:  SessionID TimePassed C URLID
#
# ParClick reads every field with std::stoi and only SERPs of exactly 10
# results, so:
#   - query and document IDs (any string, e.g. q3 and d73) become dense
#     integers from 1, one dictionary for queries and one for documents;
#   - session IDs become 1, 2, ... in file order (a new number whenever the
#     session field changes from the previous line);
#   - a query line with other than 10 results stops the conversion;
#   - a final sentinel SERP (query 0, documents 0) is appended, because
#     ParClick stores a SERP only when the next query line arrives and so
#     drops the last SERP of its input: with the sentinel it keeps every SERP
#     of the log, as lovbench does.
BEGIN { FS = "\t"; OFS = "\t"; sid = 0; prev = "" }
{
    sub(/\r$/, "")
    if ($0 == "") next
    if ($1 != prev) { sid++; prev = $1 }
    if ($3 == "Q") {
        if (NF != 15) {
            printf "to_parclick: line %d: a query line with %d results; ParClick needs exactly 10\n", NR, NF - 5 > "/dev/stderr"
            bad = 1
            exit 1
        }
        if (!($4 in Q)) Q[$4] = ++nq
        line = sid OFS $2 OFS "Q" OFS Q[$4] OFS 0
        for (i = 6; i <= 15; i++) {
            if (!($i in D)) D[$i] = ++nd
            line = line OFS D[$i]
        }
        print line
        serps++
    } else if ($3 == "C") {
        if (!($4 in D)) D[$4] = ++nd
        print sid, $2, "C", D[$4]
    } else {
        printf "to_parclick: line %d: record type %s is neither Q nor C\n", NR, $3 > "/dev/stderr"
        bad = 1
        exit 1
    }
}
END {
    if (bad) exit 1
    print sid + 1, 0, "Q", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    printf "to_parclick: %d SERPs, %d queries, %d documents\n", serps, nq, nd > "/dev/stderr"
}
