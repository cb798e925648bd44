# python3 /work/lab/llm/validate.py DIR : checks every NNN.reply.json in DIR against its NNN.prompt.txt
import json,re,sys,glob,os
C={'factual','organizational','bibliographic','subjective','meta'}
d=sys.argv[1]; bad=0
for p in sorted(glob.glob(os.path.join(d,'*.prompt.txt'))):
    r=p.replace('.prompt.txt','.reply.json')
    ids=[int(x) for x in re.findall(r'^\[(\d+)\] ',open(p).read().split('=== USER ===',1)[1],re.M)]
    if not os.path.exists(r): print(os.path.basename(r),'MISSING'); bad+=1; continue
    try: j=json.load(open(r))
    except Exception as e: print(os.path.basename(r),'not JSON:',e); bad+=1; continue
    L=j.get('labels') if isinstance(j,dict) else None
    if not isinstance(L,list): print(os.path.basename(r),'no "labels" array'); bad+=1; continue
    got=[x.get('id') for x in L]
    probs=[]
    if sorted(got)!=sorted(ids): probs.append(f'ids differ: missing {sorted(set(ids)-set(got))[:5]} extra {sorted(set(got)-set(ids))[:5]} dup {len(got)-len(set(got))}')
    if any(x.get('class') not in C for x in L): probs.append('invalid class')
    if probs: print(os.path.basename(r),'; '.join(probs)); bad+=1
print('files with problems:',bad)
