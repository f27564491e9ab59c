package pipeline

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lovbench/lovbench/internal/atomicfile"
)

// PIISaltFile is the work directory's private key of the session-ID
// pseudonymisation (ingest.Config.PIISalt), used when
// the configuration gives no log.pii_salt and the log is not simulated. It
// is created with 32 random bytes (hex) and mode 0600 on the first run and
// reused by every rerun in the work directory, so reruns stay
// byte-identical. It is never part of a stage output or a release; a fresh
// work directory gets a new key (give log.pii_salt for identical outputs
// across work directories).
const PIISaltFile = ".pii-salt"

// workdirSalt returns the key of PIISaltFile in wd, creating it if needed.
func workdirSalt(wd string) ([]byte, error) {
	p := filepath.Join(wd, PIISaltFile)
	b, err := os.ReadFile(p)
	if err == nil && len(b) > 0 {
		return b, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("PII salt: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("PII salt: %w", err)
	}
	salt := []byte(hex.EncodeToString(key))
	f, err := atomicfile.Create(p)
	if err != nil {
		return nil, fmt.Errorf("PII salt: %w", err)
	}
	defer f.Abort()
	f.SetPerm(0o600) // a private key
	f.Write(salt)
	if err := f.Commit(); err != nil {
		return nil, fmt.Errorf("PII salt: %w", err)
	}
	return salt, nil
}

// saltID identifies a salt in the ingest stage's fingerprint without
// revealing it: the first 8 bytes of HMAC-SHA256(salt, "lovbench/pii-salt-id")
// in hex. A changed salt reruns ingest and everything after it.
func saltID(salt []byte) string {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte("lovbench/pii-salt-id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}
