package sampling

import "os"

// ReadGroundTruthFile reads the ground-truth CSV at path with
// ReadGroundTruth: the one reader of the file, for the pipeline's stages,
// its report and lovbench diff.
func ReadGroundTruthFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadGroundTruth(f, path)
}
