package main

// The file systems lovbench-beam reads and writes through Beam's
// file-system layer (lbbeam's paths): local files (no scheme), Google
// Cloud Storage (gs://) and Amazon S3 (s3://).
import (
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
)
