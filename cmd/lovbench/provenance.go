package main

import (
	"errors"

	"github.com/lovbench/lovbench/sessions"
)

// carryProvenance gives the output file to the provenance of the input
// file from (sessions.CarryProvenance: whether the log behind it was
// simulated), so that label and sample pass it on to export. A sidecar
// that no longer describes its file is not carried, with a warning.
func carryProvenance(a *app, from, to string) error {
	_, err := sessions.CarryProvenance(from, to)
	if errors.Is(err, sessions.ErrStaleProvenance) {
		a.log.Warn("the log's provenance is not carried", "reason", err)
		return nil
	}
	return err
}
