package prompt

// The templates. Placeholders: {{CANDIDATES}}, {{CLAIMS}}, {{N}}, {{IDS}},
// {{FIRST}}. The kgjudge style keeps everything fixed (task, criteria,
// examples, output format: the ...Instr constants) in the system message,
// byte-identical across calls so that providers' prompt caches reuse it,
// and only the variable part (candidates, claims, one reminder line) in
// the user message, last. Any change here changes the prompt hash, which changes the
// judge name and misses the cache: that is intended.

const systemEN = `You are an expert evaluator of knowledge graphs. You judge, claim by claim, whether one knowledge graph entails statements of another, using only the triples you are shown. You answer with JSON only.`

const systemZH = `你是知识图谱评测专家。你只依据给出的三元组，逐条判断一个知识图谱是否蕴含另一个图谱中的陈述。你只输出 JSON。`

const coverageENInstr = `Each message gives a predicted knowledge graph (triples P-X) and some ground-truth claims (GT-X). Decide for each ground-truth claim whether the predicted graph COVERS it. Triples may be in English, Chinese or both; a translation of a name counts as an alias.

## Criteria
A claim is covered if and only if the predicted triples entail ALL of the facts the claim states. There are four ways, and "kind" names the one that applies:
1. "direct": one predicted triple states the same fact. Aliases of entities (abbreviations, alternative names, translations) and synonymous relations are allowed.
2. "subsumption": one predicted triple states more, and the claim is part of it (e.g. the prediction lists all the ingredients, the claim names one of them).
3. "collective": several predicted triples together state the whole claim (e.g. the prediction lists the parts one by one, the claim merges them).
4. "compositional": several predicted triples combine into the claim through a relation that is itself stated in the predicted graph (contains, part of, belongs to, located in, alias of).
Not covered: nothing in the predicted graph corresponds to the claim, or the prediction contradicts it.

## Mistakes to avoid
- Unrelated entities do not cover: an attribute of entity A never covers a claim about entity B unless the predicted graph itself links A and B.
- Close but not equivalent does not cover: e.g. "wheezing" is not "shortness of breath", "chest tightness" is not "chest pain".
- Outside knowledge does not cover: a conclusion that needs background knowledge not stated in the predicted graph is not covered.
- Do not mix up the numbers: "support" holds the X of P-X, never the X of GT-X.
- If you are not sure, the claim is not covered.

## Worked example
Suppose the predicted graph contains:
  P-20: "Stanford University" --[location]--> "Stanford, California, USA"
  P-21: "Aspirin" --[active ingredient]--> "acetylsalicylic acid"
  P-22: "Model Y" --[battery options]--> "58 kWh, 75 kWh and 82 kWh"
  P-23: "Vitamin D" --[source]--> "sunlight"
  P-24: "Vitamin D" --[source]--> "oily fish"
  P-25: "Koh Samui" --[has resort]--> "Six Senses Samui"
  P-26: "Koh Samui" --[access]--> "about 1-hour flight from Bangkok"
  P-27: "Hotel A" --[all-inclusive]--> "yes"
  P-28: "Seasonal allergic asthma" --[typical symptoms]--> "cough, wheezing, chest tightness"
  P-29: "Everest Base Camp trek" --[maximum altitude]--> "5,364 m"
Then:
- "Stanford University" --[city]--> "Stanford": covered, direct, support [20] (same fact, synonymous relation).
- "Aspirin" --[main component]--> "ASA (acetylsalicylic acid)": covered, direct, support [21] (alias and relation synonym).
- "Model Y" --[battery option]--> "75 kWh": covered, subsumption, support [22].
- "Vitamin D" --[sources]--> "sunlight and oily fish": covered, collective, support [23, 24].
- "Six Senses Samui" --[access]--> "1-hour flight from Bangkok": covered, compositional, support [25, 26] (P-25 states that the resort is on Koh Samui).
- "Hotel B" --[all-inclusive]--> "no": not covered (P-27 is about Hotel A, an unrelated entity).
- "Spring allergies" --[common symptom]--> "shortness of breath": not covered (P-28 is about asthma, not spring allergies as a whole, and wheezing is not shortness of breath).
- "Everest Base Camp trek" --[altitude sickness risk]--> "high": not covered (needs outside knowledge).
- 中文示例: "北京大学" --[所在城市]--> "北京" is covered, direct, by "Peking University" --[located in]--> "Haidian District, Beijing".

## Output
Return one JSON object and nothing else:
{"verdicts": [{"claim": <X of GT-X>, "covered": true or false, "kind": "direct" | "subsumption" | "collective" | "compositional" | "none", "support": [<X of P-X>, ...], "reason": "<one short sentence>"}]}
- Exactly one verdict for each claim listed, each claim once (the message lists how many and their numbers).
- covered=true: "kind" is the way the claim is covered and "support" lists every P- number needed (at least one).
- covered=false: "kind" is "none" and "support" is [].
- "support" holds only P- numbers from the list in the message.`

const coverageEN = `## Predicted triples (P-X)
{{CANDIDATES}}

## Ground-truth claims to judge ({{N}} claims: {{IDS}})
{{CLAIMS}}

Answer with exactly {{N}} verdicts, one for each of {{IDS}}, as the JSON object described in the instructions.`

const coverageZHInstr = `每条消息给出一个预测的知识图谱（三元组 P-X）和若干条 ground truth 声明（GT-X）。请逐条判断每条 GT 声明是否被预测图谱**覆盖**。三元组可能是中文、英文或两者混合；名称的翻译视为别名。

## 判断标准
当且仅当预测三元组蕴含该声明陈述的**全部**事实时，才算覆盖。共四种方式，"kind" 填写适用的那一种：
1. "direct"（直接）：某一条预测三元组表达了相同的事实；允许实体别名（简称、别称、译名）和同义关系。
2. "subsumption"（包含）：某一条预测三元组信息更多，GT 声明是其中的一部分（如预测列出全部成分，GT 只提其中一种）。
3. "collective"（合并）：多条预测三元组合起来完整表达了该声明（如预测逐项列出各部分，GT 把它们合为一条）。
4. "compositional"（组合）：多条预测三元组借助预测图谱中**明确存在**的关系（包含、属于、位于、别名等）组合成该声明。
不覆盖：预测图谱中找不到对应信息，或预测与该声明矛盾。

## 必须避免的错误
- 无关实体不算覆盖：除非预测图谱本身把实体 A 和实体 B 联系起来，否则 A 的属性不能当作 B 的属性。
- 相近但不等价不算覆盖：如"喘鸣"不等于"呼吸急促"，"胸闷"不等于"胸痛"。
- 需要外部知识的推理不算覆盖：仅凭预测图谱推不出、需要额外背景知识的结论不算覆盖。
- 不要混淆编号："support" 填 P-X 中的数字 X，不是 GT-X 中的数字。
- 不确定时，判为不覆盖。

## 示例
假设预测图谱中有：
  P-20: "斯坦福大学" --[位置]--> "美国加利福尼亚州斯坦福"
  P-21: "阿司匹林" --[有效成分]--> "乙酰水杨酸"
  P-22: "Model Y" --[电池选项]--> "58 kWh、75 kWh 和 82 kWh"
  P-23: "维生素D" --[来源]--> "日晒"
  P-24: "维生素D" --[来源]--> "深海鱼"
  P-25: "苏梅岛" --[拥有度假村]--> "六善苏梅"
  P-26: "苏梅岛" --[交通方式]--> "曼谷飞约1小时"
  P-27: "酒店A" --[是否全包]--> "提供"
  P-28: "季节性过敏性哮喘" --[典型症状]--> "咳嗽、喘鸣、胸闷"
  P-29: "珠峰大本营徒步" --[最高海拔]--> "5364米"
则：
- "斯坦福大学" --[所在城市]--> "斯坦福"：覆盖，direct，support [20]（事实相同，关系同义）。
- "阿司匹林" --[主要成分]--> "乙酰水杨酸（ASA）"：覆盖，direct，support [21]（别名与同义关系）。
- "Model Y" --[电池选项]--> "75 kWh"：覆盖，subsumption，support [22]。
- "维生素D" --[来源]--> "日晒和深海鱼"：覆盖，collective，support [23, 24]。
- "六善苏梅" --[交通方式]--> "从曼谷飞约1小时"：覆盖，compositional，support [25, 26]（P-25 明确说明该度假村在苏梅岛）。
- "酒店B" --[是否全包]--> "不提供"：不覆盖（P-27 说的是酒店A，与酒店B无关）。
- "春季过敏性疾病" --[常见症状]--> "呼吸急促"：不覆盖（P-28 只说哮喘，不是春季过敏性疾病整体；且喘鸣不等于呼吸急促）。
- "珠峰大本营徒步" --[高原反应风险]--> "高"：不覆盖（需要外部知识）。
- English example: "Peking University" --[city]--> "Beijing" is covered, direct, by "北京大学" --[位置]--> "北京市海淀区".

## 输出格式
只输出一个 JSON 对象，不要其他内容：
{"verdicts": [{"claim": <GT-X 中的 X>, "covered": true 或 false, "kind": "direct" | "subsumption" | "collective" | "compositional" | "none", "support": [<P-X 中的 X>, ...], "reason": "<一句话理由>"}]}
- 消息中列出的每条声明各一个 verdict，不重复（条数与编号见消息）。
- covered=true 时，"kind" 填覆盖方式，"support" 列出所需的全部 P- 编号（至少一个）。
- covered=false 时，"kind" 为 "none"，"support" 为 []。
- "support" 只能填消息列表中的 P- 编号。`

const coverageZH = `## 预测图谱三元组（P-X）
{{CANDIDATES}}

## 待判断的 GT 声明（共 {{N}} 条：{{IDS}}）
{{CLAIMS}}

请输出恰好 {{N}} 个 verdict（{{IDS}}各一个），格式见说明中的 JSON。`

const validityENInstr = `Each message gives a ground-truth knowledge graph (triples GT-X) and some predicted triples (P-X). Decide for each predicted triple whether it is VALID, that is, supported by the ground-truth graph. Triples may be in English, Chinese or both; a translation of a name counts as an alias.

## Criteria
A predicted triple is valid if and only if the ground-truth triples entail ALL of the facts it states:
1. one ground-truth triple states the same fact (entity aliases, abbreviations, translations and synonymous relations are allowed), or
2. it is part of a richer ground-truth triple (e.g. the ground truth lists all the ingredients, the prediction names one), or
3. several ground-truth triples together state it, or
4. several ground-truth triples combine into it through a relation stated in the ground-truth graph (contains, part of, belongs to, located in, alias of).
Not valid: the ground truth says nothing about it, or contradicts it.

## Mistakes to avoid
- Unrelated entities do not support: a ground-truth attribute of entity A never supports a prediction about entity B unless the ground truth links A and B.
- Close but not equivalent does not support (e.g. "wheezing" is not "shortness of breath").
- Outside knowledge does not support: facts that are true in the world but not stated in the ground truth are not valid here.
- Do not mix up the numbers: "support" holds the X of GT-X, never the X of P-X.
- If you are not sure, the predicted triple is not valid.

## Worked example
Suppose the ground truth contains:
  GT-3: "Stanford University" --[city]--> "Stanford"
  GT-4: "Vitamin D" --[sources]--> "sunlight and oily fish"
  GT-5: "Koh Samui" --[has resort]--> "Six Senses Samui"
  GT-6: "Koh Samui" --[access]--> "about 1-hour flight from Bangkok"
Then:
- "Stanford University" --[location]--> "Stanford, California": valid, support [3].
- "Vitamin D" --[source]--> "oily fish": valid, support [4] (part of a richer ground-truth triple).
- "Six Senses Samui" --[reached by]--> "flight from Bangkok": valid, support [5, 6] (GT-5 links the resort to Koh Samui).
- "Six Senses Samui" --[price per night]--> "USD 900": not valid (the ground truth says nothing about price).
- "Stanford University" --[city]--> "Palo Alto": not valid (contradicts GT-3).
- 中文示例: "维生素D" --[来源]--> "深海鱼" is valid, support [4].

## Output
Return one JSON object and nothing else:
{"verdicts": [{"claim": <X of P-X>, "valid": true or false, "support": [<X of GT-X>, ...], "reason": "<one short sentence>"}]}
- Exactly one verdict for each predicted triple listed, each once (the message lists how many and their numbers).
- valid=true: "support" lists every GT- number needed (at least one). valid=false: "support" is [].
- "support" holds only GT- numbers from the list in the message.`

const validityEN = `## Ground-truth triples (GT-X)
{{CANDIDATES}}

## Predicted triples to judge ({{N}} triples: {{IDS}})
{{CLAIMS}}

Answer with exactly {{N}} verdicts, one for each of {{IDS}}, as the JSON object described in the instructions.`

const validityZHInstr = `每条消息给出一个 ground truth 知识图谱（三元组 GT-X）和若干条预测三元组（P-X）。请逐条判断每条预测三元组是否**有效**，即是否得到 ground truth 图谱的支持。三元组可能是中文、英文或两者混合；名称的翻译视为别名。

## 判断标准
当且仅当 ground truth 三元组蕴含该预测三元组陈述的**全部**事实时，才算有效：
1. 某一条 GT 三元组表达了相同的事实（允许实体别名、简称、译名和同义关系），或
2. 它是某条信息更多的 GT 三元组的一部分（如 GT 列出全部成分，预测只提其中一种），或
3. 多条 GT 三元组合起来表达了它，或
4. 多条 GT 三元组借助 GT 图谱中明确存在的关系（包含、属于、位于、别名等）组合成它。
无效：GT 中没有相关信息，或与 GT 矛盾。

## 必须避免的错误
- 无关实体不算支持：除非 GT 把实体 A 和实体 B 联系起来，否则 A 的属性不能支持关于 B 的预测。
- 相近但不等价不算支持（如"喘鸣"不等于"呼吸急促"）。
- 外部知识不算支持：现实中为真、但 GT 中没有陈述的事实，在这里不算有效。
- 不要混淆编号："support" 填 GT-X 中的数字 X，不是 P-X 中的数字。
- 不确定时，判为无效。

## 示例
假设 GT 中有：
  GT-3: "斯坦福大学" --[所在城市]--> "斯坦福"
  GT-4: "维生素D" --[来源]--> "日晒和深海鱼"
  GT-5: "苏梅岛" --[拥有度假村]--> "六善苏梅"
  GT-6: "苏梅岛" --[交通方式]--> "曼谷飞约1小时"
则：
- "斯坦福大学" --[位置]--> "美国加州斯坦福"：有效，support [3]。
- "维生素D" --[来源]--> "深海鱼"：有效，support [4]（是信息更多的 GT 三元组的一部分）。
- "六善苏梅" --[交通方式]--> "从曼谷乘飞机"：有效，support [5, 6]（GT-5 把度假村与苏梅岛联系起来）。
- "六善苏梅" --[每晚价格]--> "900美元"：无效（GT 中没有价格信息）。
- "斯坦福大学" --[所在城市]--> "帕洛阿尔托"：无效（与 GT-3 矛盾）。
- English example: "Vitamin D" --[source]--> "oily fish" is valid, support [4].

## 输出格式
只输出一个 JSON 对象，不要其他内容：
{"verdicts": [{"claim": <P-X 中的 X>, "valid": true 或 false, "support": [<GT-X 中的 X>, ...], "reason": "<一句话理由>"}]}
- 消息中列出的每条预测三元组各一个 verdict，不重复（条数与编号见消息）。
- valid=true 时，"support" 列出所需的全部 GT- 编号（至少一个）；valid=false 时，"support" 为 []。
- "support" 只能填消息列表中的 GT- 编号。`

const validityZH = `## Ground truth 三元组（GT-X）
{{CANDIDATES}}

## 待判断的预测三元组（共 {{N}} 条：{{IDS}}）
{{CLAIMS}}

请输出恰好 {{N}} 个 verdict（{{IDS}}各一个），格式见说明中的 JSON。`

// referenceCoverage restates the public reference evaluator's coverage
// prompt (VibeBench/VibeSearchBench eval/evaluator.py) in our own words:
// same sections, same four criteria and failure modes, same numbering and
// the same output shape {"results": [{"index", "covered",
// "supporting_pred_indices"}]}; the worked examples are ours.
const referenceCoverage = `你是知识图谱评测专家。下面是一组预测的知识图谱三元组（P-编号），请判断每一条 ground truth 声明（GT-编号）是否被预测图谱中的信息**覆盖**。

## 预测图谱三元组（P-编号）
{{CANDIDATES}}

## 待判断的 Ground Truth 声明（共 {{N}} 条，编号 {{IDS}}）
{{CLAIMS}}

## 判断标准
只有当预测图谱中的信息**蕴含该 GT 声明的全部事实**时，才算"被覆盖"：
1. 预测图谱中有一条三元组直接表达了同样的信息（实体可以是别名，关系可以是同义词），或
2. 预测图谱中某条三元组信息更丰富，把该 GT 声明作为其中一部分包含在内（如预测列出了全部组成，GT 只提到其中之一），或
3. 预测图谱中的多条三元组合在一起完整覆盖了该 GT 声明（如预测把各部分分别列出，GT 把它们合成一条），或
4. 预测图谱中的多条三元组可以**通过图谱里已经明确给出的关系**（如包含、属于、位于、别名）组合起来覆盖该 GT 声明

不覆盖：预测图谱里完全没有对应的信息，或预测信息与 GT 相矛盾

## 常见错误（必须避免）
- **无关实体不算覆盖**：预测图谱没有在两个实体之间建立关系时，不能把一个实体的属性算到另一个实体头上
- **意思相近但不等价不算覆盖**：如"喘鸣"和"呼吸急促"是不同的症状，不能等同
- **依赖外部知识的推理不算覆盖**：只靠预测图谱本身推不出来、必须借助额外背景知识才能得出的结论，不算覆盖
- **不要混淆编号**：supporting_pred_indices 填写 P-X 中的数字，而不是 GT-X 中的数字

## 示例
设预测图谱中有：
  P-20: "斯坦福大学" --[位置]--> "美国加利福尼亚州斯坦福"
  P-25: "苏梅岛" --[拥有度假村]--> "六善苏梅"
  P-26: "苏梅岛" --[交通方式]--> "曼谷飞约1小时"
  P-27: "酒店A" --[是否全包]--> "提供"
  P-28: "季节性过敏性哮喘" --[典型症状]--> "咳嗽、喘鸣、胸闷"

示例判断：
- GT: "斯坦福大学" --[所在城市]--> "斯坦福"  → covered=true, supporting=[P-20]  ✓ 直接表达了同样的信息
- GT: "六善苏梅" --[交通方式]--> "从曼谷飞约1小时"  → covered=true, supporting=[P-25, P-26]  ✓ P-25 明确说明苏梅岛有六善苏梅，P-26 给出苏梅岛的交通方式，两者组合即可覆盖
- GT: "春季过敏性疾病" --[常见症状]--> "呼吸急促"  → covered=false  ✓ P-28 说的是哮喘的症状，不是春季过敏性疾病整体的；而且"喘鸣"≠"呼吸急促"
- GT: "酒店B" --[是否全包]--> "不提供"  → covered=false  ✓ P-27 说的是酒店A，与酒店B无关

## 输出格式
results 数组必须恰好有 {{N}} 个元素。每个元素的 index 必须是对应 GT 声明的编号（即 GT-X 中的数字 X：{{IDS}}）。
supporting_pred_indices 填写支持该 GT 声明的预测三元组编号（即 P-X 中的数字 X）。
不确定是否覆盖时，判为 false。

输出 JSON：
{"results": [{"index": {{FIRST}}, "covered": true, "supporting_pred_indices": [3, 7]}, {"index": ..., "covered": false, "supporting_pred_indices": []}, ...]}
只输出 JSON，不要其他内容。`
