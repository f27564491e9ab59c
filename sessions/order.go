package sessions

import "slices"

// The order of clicks (Wang, Liu, Wang, Zhou, Nie and Ma, SIGIR 2015,
// "Incorporating Non-sequential Behavior into Click Models", section 3:
// users do not always click top-down). A SERP's click order is the
// sequence of its clicked ranks sorted by the time of each rank's first
// click; a rank clicked again later is a repeated click and keeps the place
// of its first click. Clicks at equal times have no order in the log: they
// fall back to rank order (and are counted as tied).

// OrderCounts counts what the click times of SERPs show. None of its
// counts is part of an accounting identity: every click is still a click.
type OrderCounts struct {
	// MultiClickSERPs are SERPs with clicks on two or more ranks.
	MultiClickSERPs int `json:"multi_click_serps"`
	// OutOfOrderSERPs are SERPs whose click order is not rank order.
	OutOfOrderSERPs int `json:"out_of_order_serps"`
	// OutOfOrderClicks are first clicks on a rank above the rank of the
	// click before them (a return up the page).
	OutOfOrderClicks int `json:"out_of_order_clicks"`
	// RepeatedClicks are clicks on a rank already clicked on the same SERP.
	RepeatedClicks int `json:"repeated_clicks"`
	// TiedSERPs are SERPs with two first clicks at the same time: the log
	// does not order them, and they are taken in rank order.
	TiedSERPs int `json:"tied_click_times_serps"`
}

// Add adds o to c.
func (c *OrderCounts) Add(o OrderCounts) {
	c.MultiClickSERPs += o.MultiClickSERPs
	c.OutOfOrderSERPs += o.OutOfOrderSERPs
	c.OutOfOrderClicks += o.OutOfOrderClicks
	c.RepeatedClicks += o.RepeatedClicks
	c.TiedSERPs += o.TiedSERPs
}

// ClickOrder appends to dst the clicked ranks of a SERP in the order of
// their first click (clicks: every click of the SERP, in any order; a rank
// outside [0, MaxRanks) is skipped) and returns it, with inOrder reporting whether that is rank
// order. Ranks whose first clicks have equal times are in rank order. If c
// is not nil, the SERP is counted in it.
func ClickOrder(dst []uint8, clicks []Click, c *OrderCounts) (order []uint8, inOrder bool) {
	// first[k]: the first click on each rank, in rank order after the
	// stable sort by time below.
	var buf [MaxRanks]Click
	first := buf[:0]
	var seen uint64
	repeated := 0
	for _, k := range clicks {
		if k.Rank < 0 || k.Rank >= MaxRanks {
			continue // no Log holds it (Log.Add rejects it)
		}
		bit := uint64(1) << uint(k.Rank)
		if seen&bit != 0 {
			repeated++
			for j := range first {
				if first[j].Rank == k.Rank && k.TimePassed < first[j].TimePassed {
					first[j].TimePassed = k.TimePassed
				}
			}
			continue
		}
		seen |= bit
		first = append(first, k)
	}
	slices.SortFunc(first, func(a, b Click) int {
		if a.TimePassed != b.TimePassed {
			if a.TimePassed < b.TimePassed {
				return -1
			}
			return 1
		}
		return a.Rank - b.Rank
	})
	inOrder = true
	tied := false
	out := 0
	for j, k := range first {
		if j > 0 {
			if k.Rank < first[j-1].Rank {
				inOrder = false
				out++
			}
			if k.TimePassed == first[j-1].TimePassed {
				tied = true
			}
		}
		dst = append(dst, uint8(k.Rank))
	}
	if c != nil {
		c.RepeatedClicks += repeated
		c.OutOfOrderClicks += out
		if len(first) >= 2 {
			c.MultiClickSERPs++
		}
		if !inOrder {
			c.OutOfOrderSERPs++
		}
		if tied {
			c.TiedSERPs++
		}
	}
	return dst, inOrder
}

// InRankOrder reports whether order (distinct ranks) is increasing.
func InRankOrder(order []uint8) bool {
	for j := 1; j < len(order); j++ {
		if order[j] < order[j-1] {
			return false
		}
	}
	return true
}

// RankOrder appends to dst the ranks set in mask, in rank order.
func RankOrder(dst []uint8, mask uint64) []uint8 {
	for r := 0; mask != 0; r++ {
		if mask&1 != 0 {
			dst = append(dst, uint8(r))
		}
		mask >>= 1
	}
	return dst
}

// ClickOrder appends to dst the clicked ranks of SERP i in click order
// (rank order unless the log holds another order for it) and returns it.
func (l *Log) ClickOrder(dst []uint8, i int) []uint8 {
	if j, ok := l.orderIndex(i); ok {
		return append(dst, l.OrderRanks[l.OrderOff[j]:l.OrderOff[j+1]]...)
	}
	return RankOrder(dst, l.Clicks[i])
}

// orderIndex finds SERP i among the SERPs with an order of their own.
func (l *Log) orderIndex(i int) (int, bool) {
	if len(l.OrderSERP) == 0 {
		return 0, false
	}
	return slices.BinarySearch(l.OrderSERP, int32(i))
}

// HasOrder reports whether some SERP of l was clicked out of rank order.
func (l *Log) HasOrder() bool { return len(l.OrderSERP) > 0 }

// SetLastOrder records order (its clicked ranks in click order; nil or
// rank order: nothing to record) as the click order of the SERP added
// last, for a Log built column by column.
func (l *Log) SetLastOrder(order []uint8) { l.setOrder(order) }

// setOrder records the click order of the SERP just added (index
// l.Len()-1) when it is not rank order.
func (l *Log) setOrder(order []uint8) {
	if InRankOrder(order) {
		return
	}
	if len(l.OrderOff) == 0 {
		l.OrderOff = append(l.OrderOff, 0)
	}
	l.OrderSERP = append(l.OrderSERP, int32(l.Len()-1))
	l.OrderRanks = append(l.OrderRanks, order...)
	l.OrderOff = append(l.OrderOff, int64(len(l.OrderRanks)))
}
