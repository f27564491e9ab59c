package sessions

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// orderLog is a hand-written Yandex log whose C lines' TimePassed give the
// click order. The expected orders and counts below are read off it by
// hand:
//
//	SERP 0 (s1, q1, a b c d): clicks c@5, a@8, c@9 (repeat), b@12
//	        -> order c a b: a (rank 0) after c (rank 2) is out of order,
//	        b (1) after a (0) is not: 1 out-of-order click, 1 repeated click
//	SERP 1 (s1, q2, a b c):   clicks b@20, a@20 (same second) -> no order
//	        in the log: rank order a b, tied
//	SERP 2 (s2, q1, a b c d): clicks d@3 written after b@7 in the file
//	        -> order by time: d b, 1 out-of-order click
//	SERP 3 (s3, q1, a b c d): clicks a@1, c@2 -> rank order
//	SERP 4 (s3, q2, a b c):   no click
const orderLog = "s1\t0\tQ\tq1\t0\ta\tb\tc\td\n" +
	"s1\t5\tC\tc\n" +
	"s1\t8\tC\ta\n" +
	"s1\t9\tC\tc\n" +
	"s1\t12\tC\tb\n" +
	"s1\t15\tQ\tq2\t0\ta\tb\tc\n" +
	"s1\t20\tC\tb\n" +
	"s1\t20\tC\ta\n" +
	"s2\t0\tQ\tq1\t0\ta\tb\tc\td\n" +
	"s2\t7\tC\tb\n" +
	"s2\t3\tC\td\n" +
	"s3\t0\tQ\tq1\t0\ta\tb\tc\td\n" +
	"s3\t1\tC\ta\n" +
	"s3\t2\tC\tc\n" +
	"s3\t4\tQ\tq2\t0\ta\tb\tc\n"

var orderWant = [][]uint8{{2, 0, 1}, {0, 1}, {3, 1}, {0, 2}, nil}

func checkOrders(t *testing.T, what string, log *Log, want [][]uint8) {
	t.Helper()
	if log.Len() != len(want) {
		t.Fatalf("%s: %d SERPs, want %d", what, log.Len(), len(want))
	}
	for i, w := range want {
		got := log.ClickOrder(nil, i)
		if len(got) == 0 && len(w) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s: SERP %d click order %v, want %v", what, i, got, w)
		}
	}
}

// TestClickOrderFromTimes reads the click order from the times of a
// hand-written Yandex log, through every reader: ReadYandex, the Parquet
// file YandexToParquet writes (read by Load), and a log of SERPs (Add);
// Head and Select keep it; the counts of ScanYandexClicks are the hand
// counts above. The click masks are unchanged by the order.
func TestClickOrderFromTimes(t *testing.T) {
	log, st, err := ReadYandex(strings.NewReader(orderLog), "order.tsv", true)
	if err != nil {
		t.Fatal(err)
	}
	checkOrders(t, "ReadYandex", log, orderWant)
	wantCounts := OrderCounts{MultiClickSERPs: 4, OutOfOrderSERPs: 2, OutOfOrderClicks: 2, RepeatedClicks: 1, TiedSERPs: 1}
	if st.Order != wantCounts {
		t.Errorf("order counts %+v, want %+v", st.Order, wantCounts)
	}
	if want := []uint64{0b0111, 0b011, 0b1010, 0b0101, 0}; !reflect.DeepEqual(log.Clicks, want) {
		t.Errorf("click masks %b, want %b", log.Clicks, want)
	}
	// Only the two SERPs clicked out of rank order hold an order.
	if !reflect.DeepEqual(log.OrderSERP, []int32{0, 2}) {
		t.Errorf("OrderSERP %v, want [0 2]", log.OrderSERP)
	}
	checkOrders(t, "Head(2)", log.Head(2), orderWant[:2])
	checkOrders(t, "Head(1)", log.Head(1), orderWant[:1])
	checkOrders(t, "Select 2,3,0", log.Select(func(yield func(int) bool) {
		for _, i := range []int{2, 3, 0} {
			if !yield(i) {
				return
			}
		}
	}), [][]uint8{orderWant[2], orderWant[3], orderWant[0]})
	checkOrders(t, "Slice(1,4)", log.Slice(1, 4), orderWant[1:4])

	dir := t.TempDir()
	src := filepath.Join(dir, "order.tsv")
	if err := os.WriteFile(src, []byte(orderLog), 0o644); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(dir, ParquetName)
	if _, err := YandexToParquet(src, pq); err != nil {
		t.Fatal(err)
	}
	fromPQ, err := Load(pq)
	if err != nil {
		t.Fatal(err)
	}
	checkOrders(t, "YandexToParquet+Load", fromPQ, orderWant)

	// A log of SERPs (as ingest writes sessions.parquet: LOV's event
	// dates in seconds) with the same clicks.
	var buf bytes.Buffer
	serps := []SERP{
		{SessionID: "x", Query: "q", Results: []string{"a", "b", "c"},
			Clicks: []Click{{Rank: 2, TimePassed: 100}, {Rank: 0, TimePassed: 160}, {Rank: 2, TimePassed: 170}}},
		{SessionID: "x", Query: "q", Results: []string{"a", "b", "c"},
			Clicks: []Click{{Rank: 1, TimePassed: 50}, {Rank: 0, TimePassed: 50}}},
	}
	if err := WriteParquet(&buf, serps); err != nil {
		t.Fatal(err)
	}
	pq2 := filepath.Join(dir, "serps.parquet")
	if err := os.WriteFile(pq2, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fromSERPs, err := Load(pq2)
	if err != nil {
		t.Fatal(err)
	}
	checkOrders(t, "SERPs", fromSERPs, [][]uint8{{2, 0}, {0, 1}})
}
