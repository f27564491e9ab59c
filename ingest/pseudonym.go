package ingest

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// PseudonymBytes is the length of a session pseudonym before hex encoding:
// 12 bytes (96 bits) of HMAC-SHA256, written as 24 hex digits. With 10^9
// sessions the chance that two share a pseudonym is about 10^18/2^97, i.e.
// 6e-12.
const PseudonymBytes = 12

// pseudonymiser replaces session IDs, which can be personal data (an IP or
// an e-mail address used as an ID), by a keyed hash:
// hex(HMAC-SHA256(key, ID)[:PseudonymBytes]). The same ID gives the same
// pseudonym within a run (and across runs with the same key), so sessions
// stay grouped; without the key the ID cannot be recovered by hashing
// guesses. A nil pseudonymiser keeps IDs as read.
type pseudonymiser struct {
	mac hash.Hash
	sum []byte
}

// newPseudonymiser returns a pseudonymiser keyed with key, or with 32
// random bytes (recorded nowhere) when key is empty.
func newPseudonymiser(key []byte) (*pseudonymiser, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	}
	return &pseudonymiser{mac: hmac.New(sha256.New, key)}, nil
}

// Pseudonym returns the pseudonym of a session ID.
func (p *pseudonymiser) pseudonym(id string) string {
	p.mac.Reset()
	p.mac.Write([]byte(id))
	p.sum = p.mac.Sum(p.sum[:0])
	return hex.EncodeToString(p.sum[:PseudonymBytes])
}

// outputID returns the output session ID of s: its input ID pseudonymised,
// followed by the reopening suffix (LOV "~2", "~3"...) which says nothing
// about the person. It is computed once per session.
func (c *cleaner) outputID(s *session) string {
	if c.pseudo == nil {
		return s.id
	}
	if s.pid == "" {
		s.pid = c.pseudo.pseudonym(s.key) + s.id[len(s.key):]
	}
	return s.pid
}
