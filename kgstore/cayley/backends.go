package cayley

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/cayleygraph/cayley/graph"
	cayleykv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/kv/leveldb"
	hkv "github.com/hidal-go/hidalgo/kv"
	hbbolt "github.com/hidal-go/hidalgo/kv/bbolt"
	"github.com/hidal-go/hidalgo/kv/flat"
	hleveldb "github.com/hidal-go/hidalgo/kv/flat/leveldb"
	lvfilter "github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/kgjudge/kgjudge/kgstore"
)

// Backend names for OpenBackend.
const (
	// BBolt is the default on-disk backend (see the package doc for why).
	BBolt = "bbolt"
	// LevelDB is the alternative on-disk backend.
	LevelDB = "leveldb"
	// MemStore keeps everything in memory; the path is ignored.
	MemStore = "memstore"
)

// cayleykvNoBloom turns off the kv quadstore's bloom filters (see openBackend).
const cayleykvNoBloom = cayleykv.OptNoBloom

// DefaultBackend is what Open uses for a new store directory.
const DefaultBackend = BBolt

// registered maps OpenBackend's names to Cayley quadstore registrations.
var registered = map[string]string{
	BBolt:           backendBBolt,
	LevelDB:         backendLevelDB,
	MemStore:        "memstore",
	"bolt":          "bolt",              // benchmarks only
	"leveldb-stock": backendLevelDBStock, // benchmarks only
}

// boltFile is the file Cayley's bolt backends keep in the store directory.
const boltFile = "indexes.bolt"

// detectBackend names the backend of an existing store directory, or
// DefaultBackend for a new one.
func detectBackend(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, boltFile)); err == nil {
		return BBolt
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err == nil {
		return LevelDB
	}
	return DefaultBackend
}

// backendBBolt is Cayley's kv quadstore on go.etcd.io/bbolt, in the same
// file Cayley's own "bbolt" backend uses, but opened with a lock timeout: a
// second process opening the store fails instead of waiting forever.
const backendBBolt = "kgjudge-bbolt"

func bboltOpen(path string) (hkv.KV, error) {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, err
	}
	file := filepath.Join(path, boltFile)
	if err := checkBolt(file); err != nil {
		return nil, err
	}
	var db hkv.KV
	err := protect(file, func() error {
		var err error
		db, err = hbbolt.Open(file, &bolt.Options{Timeout: 2 * time.Second})
		return err
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, errors.New("store is locked by another process")
	}
	var de *kgstore.DamagedError
	if err != nil && !errors.As(err, &de) {
		// bbolt's own checks ("invalid database", "file size too small").
		err = damaged(file, err.Error())
	}
	if err != nil {
		return nil, err
	}
	return db, nil
}

// backendLevelDB is the on-disk backend: Cayley's kv quadstore on leveldb,
// opened with a bloom filter and larger caches. The files are ordinary
// Cayley leveldb files (stock Cayley opens them, and the other way round).
//
// Cayley's stock "leveldb" registration opens leveldb with default options:
// no bloom filter, so every node and quad look-up of a write or read walks
// the table levels, and writes slow down as the store grows (a profile of
// BenchmarkBackends showed most of the time in table look-ups).
const backendLevelDB = "kgjudge-leveldb"

// backendLevelDBStock is Cayley's own leveldb registration (benchmarks).
const backendLevelDBStock = leveldb.Type

func levelOptions(create bool) *opt.Options {
	return &opt.Options{
		ErrorIfExist:       create,
		ErrorIfMissing:     !create,
		Filter:             lvfilter.NewBloomFilter(10),
		BlockCacheCapacity: 32 * opt.MiB,
		WriteBuffer:        16 * opt.MiB,
	}
}

func levelOpen(path string, create bool) (hkv.KV, error) {
	if create {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, err
		}
	}
	db, err := hleveldb.Open(path, levelOptions(create))
	if create && (errors.Is(err, os.ErrExist) || os.IsExist(err)) {
		return nil, graph.ErrDatabaseExists
	}
	if err != nil {
		return nil, err
	}
	return flat.Upgrade(db), nil
}

// init registers the backends. A blank import of Cayley's leveldb
// package A blank import of Cayley's leveldb
// package does not register it: Cayley's kv package copies hidalgo's
// backends into the quadstore registry in its own init, which (package init
// order being by import path) runs before hidalgo's leveldb registers.
func init() {
	cayleykv.Register(backendBBolt, cayleykv.Registration{
		InitFunc:     func(path string, _ graph.Options) (hkv.KV, error) { return bboltOpen(path) },
		NewFunc:      func(path string, _ graph.Options) (hkv.KV, error) { return bboltOpen(path) },
		IsPersistent: true,
	})
	cayleykv.Register(backendLevelDB, cayleykv.Registration{
		InitFunc:     func(path string, _ graph.Options) (hkv.KV, error) { return levelOpen(path, true) },
		NewFunc:      func(path string, _ graph.Options) (hkv.KV, error) { return levelOpen(path, false) },
		IsPersistent: true,
	})
	if !graph.IsRegistered(backendLevelDBStock) {
		cayleykv.Register(backendLevelDBStock, cayleykv.Registration{
			InitFunc:     leveldb.Create,
			NewFunc:      leveldb.Open,
			IsPersistent: true,
		})
	}
}
