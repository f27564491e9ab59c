package textio

import (
	"encoding/json"
	"fmt"
	"os"
)

// ReadJSON decodes the JSON file path into v; a decoding error names the
// file (a missing file is the *fs.PathError of os.ReadFile, which does).
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
