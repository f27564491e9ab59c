package labels

import (
	"errors"
	"math"
	"strconv"
)

// errConfidenceField is ParseConfidence's error; callers name the file,
// line and field.
var errConfidenceField = errors.New("not empty or a probability in [0,1]")

// FormatConfidence prints a confidence as the CSV files of labels and
// ground truths hold it: the shortest form that reads back exactly
// (strconv 'g', -1), "" for NoConfidence.
func FormatConfidence(c float64) string {
	if c == NoConfidence {
		return ""
	}
	return strconv.FormatFloat(c, 'g', -1, 64)
}

// ParseConfidence reads a confidence field written by FormatConfidence:
// "" is NoConfidence, anything else must be a probability in [0, 1].
func ParseConfidence(s string) (float64, error) {
	if s == "" {
		return NoConfidence, nil
	}
	c, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(c) || c < 0 || c > 1 {
		return 0, errConfidenceField
	}
	return c, nil
}
