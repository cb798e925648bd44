# python3 assemble.py OUT FILE.jsonl
# Reads OUT/index.json (prompts.py) and every OUT/hN/NNN.reply.json, and writes the replay file: one
# {"key", "model", "content"} line per request (llmclass.Cache's format), sorted by key. A missing reply
# is reported and left out (its triples stay unjudged when replayed).
import json, os, sys
out, dest = sys.argv[1], sys.argv[2]
idx = json.load(open(os.path.join(out, 'index.json')))
lines, missing = [], []
for name, v in idx.items():
    r = os.path.join(out, name + '.reply.json')
    if not os.path.exists(r):
        missing.append(name)
        continue
    content = json.dumps(json.load(open(r)), ensure_ascii=False, separators=(',', ':'))
    lines.append((v['key'], json.dumps({'key': v['key'], 'model': v['model'], 'content': content}, ensure_ascii=False)))
lines.sort()
open(dest, 'w').write(''.join(l + '\n' for _, l in lines))
print(len(lines), 'replies; missing:', missing)
