package cli

import (
	"context"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/kgjudge/kgjudge/runs"
)

type mergeOptions struct {
	Out string
}

func mergeCommand() *ucli.Command {
	var o mergeOptions
	return &ucli.Command{
		Name:      "merge",
		Usage:     "combine the outputs of score --shard i/n into one run's outputs, byte-identical to an unsharded run",
		UsageText: "kgjudge merge --out DIR SHARD_OUT...",
		Description: `Each SHARD_OUT is the output directory of one "kgjudge score --shard i/n" (summary.json,
items/, shard.json). Every shard 1..n must be given once, split from the same ground truth,
with the same run name, judge and protocol. Item files are copied as they are; summary.json is
recomputed from them in the unsharded run's order, so DIR is byte-identical to what one
unsharded "kgjudge score" writes (failed_inputs: the input problems once, then each shard's
failed samples shard by shard). invocation.json (what one invocation spent) is not merged.
The stores are not merged: point every machine at one Neo4j (--neo4j; docs/sharding.md).

EXAMPLES:
   kgjudge score --gt examples/gt --pred examples/pred --run sharded --shard 1/2 --out shards/1   # machine 1
   kgjudge score --gt examples/gt --pred examples/pred --run sharded --shard 2/2 --out shards/2   # machine 2
   kgjudge merge --out shards/merged shards/1/sharded shards/2/sharded`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "out", Usage: "output directory of the merged run", Required: true, Destination: &o.Out},
		},
		Action: func(c *ucli.Context) error {
			return runMerge(c.Context, o, c.Args().Slice(), c.App.Writer)
		},
	}
}

func runMerge(_ context.Context, o mergeOptions, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return userErrorf("merge: give the shards' output directories")
	}
	res, err := runs.Merge(args, o.Out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d shard(s) of run %s: %d task(s), %d sample(s) -> %s\n", res.Shards, res.Run, res.Tasks, res.Samples, o.Out)
	return nil
}
