package export

import (
	"context"
	"fmt"
	"io"
	"path"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lovbench/lovbench/internal/pqfile"
)

// PartitionFile returns the slash path of the Parquet file of partition p
// (1-based): the rows of dataset.parquet in that partition, in the same
// order and with the same columns. The card's FoldK configs point their
// train, validation and test splits at these files, so that the Hugging
// Face datasets library loads fold K by its name without a second copy of
// the data per fold.
func PartitionFile(p int) string {
	return path.Join("partitions", "partition-"+strconv.Itoa(p)+".parquet")
}

// writePartitions writes PartitionFile(p) for every partition: the
// columns of dataset.parquet (parquetColumns of rec) restricted to the
// partition's rows.
func writePartitions(ctx context.Context, dir string, ds *Dataset, rec arrow.RecordBatch) ([]Output, error) {
	rows := make([][]int, ds.Folds+1)
	for i, r := range ds.Rows {
		rows[r.Partition] = append(rows[r.Partition], i)
	}
	cols := parquetColumns(ds, rec)
	var outs []Output
	for p := 1; p <= ds.Folds; p++ {
		idx := rows[p]
		o, err := writeOut(dir, PartitionFile(p), len(idx), func(w io.Writer) error {
			return pqfile.Write(w, pqfile.Select(cols, idx), len(idx), 0)
		})
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		outs = append(outs, o)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return outs, nil
}
