package cayley

import (
	"errors"
	"os"

	"github.com/cayleygraph/cayley/graph"
	cayleykv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/kv/leveldb"
	hkv "github.com/hidal-go/hidalgo/kv"
	"github.com/hidal-go/hidalgo/kv/flat"
	hleveldb "github.com/hidal-go/hidalgo/kv/flat/leveldb"
	lvfilter "github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

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

// init registers both leveldb variants. A blank import of Cayley's leveldb
// package does not register it: Cayley's kv package copies hidalgo's
// backends into the quadstore registry in its own init, which (package init
// order being by import path) runs before hidalgo's leveldb registers.
func init() {
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
