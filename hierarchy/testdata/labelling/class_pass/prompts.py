# python3 prompts.py DUMP OUT K
# Splits the requests dumped by TestLabelledTriplesLLM (KGJUDGE_CLASSIFY_LLM_DUMP=DUMP) into K folders
# OUT/h1..hK of NNN.prompt.txt files (the system and the user message, as the model reads them), and
# writes OUT/index.json (NNN -> the request's cache key and the triple ids it asks about).
import glob, json, os, re, sys
dump, out, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
index = {}
for i, f in enumerate(sorted(glob.glob(os.path.join(dump, '*.json')))):
    d = json.load(open(f))
    h, name = f'h{i % k + 1}', f'{i + 1:03d}'
    os.makedirs(os.path.join(out, h), exist_ok=True)
    with open(os.path.join(out, h, name + '.prompt.txt'), 'w') as p:
        p.write('=== SYSTEM ===\n' + d['system'] + '\n\n=== USER ===\n' + d['user'])
    index[f'{h}/{name}'] = {'key': d['key'], 'model': d['model'], 'ids': [int(x) for x in re.findall(r'^\[(\d+)\] ', d['user'], re.M)]}
json.dump(index, open(os.path.join(out, 'index.json'), 'w'), indent=1)
print(len(index), 'requests in', k, 'folders')
