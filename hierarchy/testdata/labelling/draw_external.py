# Usage: python3 draw_ext.py NAME [DIR]   (DIR defaults to /work/lab/ext; reads DIR/NAME.json, a
# final-extraction file {"qid","total","triplets":[{head,relation,tail}]})
# Writes NAME_all.tsv (every triple, index = position in "triplets") and
# NAME_random.tsv (60 drawn at random, seed 20261207).
import json, random, sys
name = sys.argv[1]
D = sys.argv[2] if len(sys.argv) > 2 else '/work/lab/ext'
d = json.load(open(f'{D}/{name}.json'))
ts = d['triplets']
if 'total' in d and d['total'] != len(ts):
    sys.exit(f'{name}: "total" is {d["total"]} but {len(ts)} triplets: transcription incomplete?')
def clean(s): return ' '.join(str(s).split())
rows = [(name, 'pred', str(i), clean(t.get('head', '')), clean(t.get('relation', '')), clean(t.get('tail', ''))) for i, t in enumerate(ts)]
hdr = 'fixture\tside\tindex\thead\trelation\ttail\n'
with open(f'{D}/{name}_all.tsv', 'w') as f:
    f.write(hdr)
    for r in rows: f.write('\t'.join(r) + '\n')
idx = sorted(random.Random(20261207).sample(range(len(rows)), min(60, len(rows))))
with open(f'{D}/{name}_random.tsv', 'w') as f:
    f.write(hdr)
    for i in idx: f.write('\t'.join(rows[i]) + '\n')
print(name, len(rows), 'triples,', len(idx), 'drawn')
