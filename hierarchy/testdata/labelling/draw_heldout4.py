# Draws held-out set 4: per held-out sample, 100 triples at random (seed
# 20261206) among the triples no earlier label file holds.
import csv, glob, os, random
T = '/work/lab/triples'
L = '/work/main/hierarchy/testdata'
labelled = set()
for f in glob.glob(L + '/labelled_triples*.tsv'):
    with open(f) as fh:
        for i, row in enumerate(fh):
            if i == 0: continue
            c = row.rstrip('\n').split('\t')
            labelled.add((c[0], c[1], c[2]))
rng = random.Random(20261206)
for s in ['d038', 'd046', 'p020', 'p070']:
    pool = []
    for side in ['gt', 'pred']:
        with open(f'{T}/{s}_{side}.tsv') as fh:
            for i, row in enumerate(fh):
                if i == 0: continue
                c = row.rstrip('\n').split('\t')
                if (c[0], c[1], c[2]) not in labelled:
                    pool.append(c)
    draw = rng.sample(pool, 100)
    draw.sort(key=lambda c: (c[1], int(c[2])))
    with open(f'/work/lab/set4/{s}_random.tsv', 'w') as out:
        out.write('fixture\tside\tindex\thead\trelation\ttail\n')
        for c in draw:
            out.write('\t'.join(c) + '\n')
    with open(f'/work/lab/set4/{s}_unlabelled.tsv', 'w') as out:
        out.write('fixture\tside\tindex\thead\trelation\ttail\n')
        for c in pool:
            out.write('\t'.join(c) + '\n')
    print(s, 'pool', len(pool), 'gt in draw', sum(1 for c in draw if c[1]=='gt'))
