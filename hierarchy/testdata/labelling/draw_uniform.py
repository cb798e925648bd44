# Held-out uniform draw: per held-out sample, N triples drawn uniformly at random among ALL its triples (GT and
# predicted), labelled or not, so that the draw has the samples' own class mix. Writes the draw (keys) and, for
# the triples no label file holds, the rows to label.
#   python3 draw_uniform.py                          the first draw: seed 20261208, 100 per sample, into /work/lab/set5
#   python3 draw_uniform.py 20261209 150 /work/lab/set6   uniform draw 2 (the draw is the same whatever is labelled; "to label" shrinks as files are added)
import glob, random, sys
SEED, PER, OUT = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]) if len(sys.argv) > 1 else (20261208, 100, '/work/lab/set5')
T = '/work/lab/triples'
L = '/work/main/hierarchy/testdata'
labelled = set()
for f in glob.glob(L + '/labelled_triples*.tsv'):
    if 'external' in f: continue
    for i, row in enumerate(open(f)):
        if i == 0: continue
        c = row.rstrip('\n').split('\t')
        labelled.add((c[0], c[1], c[2]))
rng = random.Random(SEED)
keys = []
for s in ['d038', 'd046', 'p020', 'p070']:
    pool = []
    for side in ['gt', 'pred']:
        for i, row in enumerate(open(f'{T}/{s}_{side}.tsv')):
            if i == 0: continue
            pool.append(row.rstrip('\n').split('\t'))
    draw = sorted(rng.sample(pool, PER), key=lambda c: (c[1], int(c[2])))
    new = [c for c in draw if (c[0], c[1], c[2]) not in labelled]
    keys += draw
    with open(f'{OUT}/{s}_tolabel.tsv', 'w') as out:
        out.write('fixture\tside\tindex\thead\trelation\ttail\n')
        for c in new: out.write('\t'.join(c) + '\n')
    print(s, 'pool', len(pool), 'drawn', PER, 'to label', len(new))
with open(f'{OUT}/uniform_draw.tsv', 'w') as out:
    out.write('fixture\tside\tindex\n')
    for c in keys: out.write('\t'.join(c[:3]) + '\n')
