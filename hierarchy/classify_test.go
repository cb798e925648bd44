package hierarchy

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgjudge/kgjudge/kg"
)

type labelled struct {
	rel, lang, source string
	class             Class
	why               string
}

func readLabelled(t *testing.T) []labelled {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", "labelled_relations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []labelled
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			continue // header
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 5 {
			t.Fatalf("labelled_relations.tsv:%d: %d fields", n, len(f))
		}
		out = append(out, labelled{f[0], f[1], f[2], Class(f[3]), f[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestClassifyLexicon(t *testing.T) {
	for _, tc := range []struct {
		rel     string
		want    Class
		concept string
	}{
		{"pages", Bibliographic, "pages"},
		{"volume/pages", Bibliographic, "volume"},
		{"DOI", Bibliographic, "doi"},
		{"arXiv id", Bibliographic, "identifier"},
		{"期刊卷页", Bibliographic, "pages"},
		{"发表期刊", Bibliographic, "venue"},
		{"publication_year", Bibliographic, "year"},
		{"significance", Subjective, "significance"},
		{"core contribution", Subjective, "core contribution"},
		{"历史意义", Subjective, "significance"},
		{"贡献者", Factual, ""},
		{"default_contribution_rate", Factual, ""},
		{"average nudge impact", Factual, ""},
		{"contains_subdimension", Organizational, "dimension"},
		{"part of", Organizational, "part of"},
		{"member of", Organizational, "member"},
		{"包含", Organizational, "contains"},
		{"属于", Organizational, "part of"},
		{"所属公司", Factual, ""},
		{"是否为亚洲公司品牌", Factual, ""},
		{"arXiv编号", Bibliographic, "identifier"},
		{"GitHub仓库", Bibliographic, "repository"},
		{"参考论文", Bibliographic, "paper"},
		{"论文", Bibliographic, "paper"},
		{"医院类型", Organizational, "type"},
		{"classification", Organizational, "type"},
		{"priority tier", Organizational, "type"},
		{"舒适度评分", Subjective, "rating"},
		{"filtered_out_reason", Meta, "filter"},
		{"meets the price criterion", Meta, "criteria"},
		{"推荐来源", Meta, "source"},
		{"GitHub星标数", Factual, ""},
		{"unresolved issue", Factual, ""},
		{"founded", Factual, ""},
		{"citation count", Bibliographic, "citation"},
		{"evaluations completed", Factual, ""},
		{"academic journal median treatment arm sample", Factual, ""},
		// second round: an average or star rating stays a rating, a count of
		// ratings does not; a discovery is checkable; MCDA is a published index.
		{"average user rating", Subjective, "rating"},
		{"star rating", Subjective, "rating"},
		{"stars", Factual, ""},
		{"number of ratings", Factual, ""},
		{"Metacritic score", Subjective, "rating"},
		{"好评率", Subjective, "rating"},
		{"推荐指数", Subjective, "rating"},
		{"指南推荐", Factual, ""},
		{"pros and cons", Subjective, "strength"},
		{"Pro plan price", Factual, ""},
		{"最终推荐结果", Meta, "result"},
		{"net worth", Factual, ""},
		{"主要贡献发现", Factual, ""},
		{"MCDA评分", Factual, ""},
		// third round: a total is a count; "requirement" is meta only when
		// checked; a threat group is an actor; subtypes are classes.
		{"中国内地上榜高校总数", Factual, ""},
		{"已知类型总数", Factual, ""},
		{"entry into force requirement", Factual, ""},
		{"meets founded before 2005 requirement", Meta, "criteria"},
		{"satisfies budget", Meta, "criteria"},
		{"associated threat group", Factual, ""},
		{"non-member state participants", Factual, ""},
		{"members included", Organizational, "member"},
		{"耐药抗生素类型", Factual, ""},
		{"临床最常见类型", Factual, ""},
		{"主要亚型", Organizational, "type"},
		{"drawbacks", Subjective, "strength"},
		{"customer satisfaction", Subjective, "rating"},
		{"必去景点", Subjective, "recommendation"},
		{"感受机制", Factual, ""},
		{"适合肤质", Factual, ""},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			got := Classify(tc.rel, nil)
			if got.Class != tc.want || got.Concept != tc.concept {
				t.Errorf("Classify(%q) = %s/%q (%s), want %s/%q", tc.rel, got.Class, got.Concept, got.Reason, tc.want, tc.concept)
			}
			if got.Reason == "" {
				t.Error("empty reason")
			}
		})
	}
}

func TestClassifyTriplesStructureValueAndAsked(t *testing.T) {
	gt := []kg.Triple{
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim A"},
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim B"},
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim C"},
		{Head: "Dim A", Relation: "key_paper", Tail: "Paper 1"},
		{Head: "Dim B", Relation: "key_paper", Tail: "Paper 2"},
		{Head: "Dim C", Relation: "key_person", Tail: "Person"},
		{Head: "Paper 1", Relation: "published_in", Tail: "Journal X"},
		{Head: "Paper 2", Relation: "published_in", Tail: "Journal Y"},
		{Head: "Paper 1", Relation: "author", Tail: "Person"},
		{Head: "Person", Relation: "born", Tail: "1950"},
		{Head: "Hospital", Relation: "是", Tail: "三级甲等医院"},
	}
	pred := []kg.Triple{
		{Head: "Paper 1", Relation: "journal", Tail: "Journal X"},
		{Head: "Paper 1", Relation: "pages", Tail: "1-10"},
		{Head: "Paper 1", Relation: "peer reviewed?", Tail: "Yes"},
		{Head: "Paper 1", Relation: "meets the venue requirement", Tail: "Yes"},
		{Head: "Paper 1", Relation: "link", Tail: "https://example.org/p1"},
		{Head: "Paper 1", Relation: "online at", Tail: "https://example.org/p1"},
		{Head: "Paper 1", Relation: "significance", Tail: "first RCT of its kind in Kenya"},
		{Head: "Paper 1", Relation: "significance", Tail: "the most influential paper of the decade"},
		{Head: "User criteria", Relation: "requirement 1", Tail: "published after 2000"},
		{Head: "Hospital", Relation: "hospital type", Tail: "综合"},
	}
	gtCls := ClassifyTriples(gt, nil)
	predCls := ClassifyTriples(pred, gt)
	for _, tc := range []struct {
		name  string
		got   Classification
		want  Class
		asked *bool
		ev    Evidence
		tail  ValueKind
	}{
		{"dimension child is organizational", gtCls[5], Organizational, nil, EvidenceStructure, KindEntity},
		{"a paper from a dimension is bibliographic", gtCls[3], Bibliographic, ptr(true), EvidenceLexicon, KindEntity},
		{"root relation is organizational", gtCls[0], Organizational, nil, EvidenceLexicon, KindEntity},
		{"attribute stays factual", gtCls[9], Factual, nil, EvidenceDefault, KindDate},
		{"is-a link to a class node", gtCls[10], Organizational, nil, EvidenceLexicon, KindLiteral},
		{"asked-for venue", predCls[0], Bibliographic, ptr(true), EvidenceLexicon, KindLiteral},
		{"unasked pages", predCls[1], Bibliographic, ptr(false), EvidenceLexicon, KindNumber},
		{"yes/no about the world is a fact", predCls[2], Factual, nil, EvidenceDefault, KindYesNo},
		{"yes/no about the user's filter is meta", predCls[3], Meta, ptr(false), EvidenceLexicon, KindYesNo},
		{"link relation", predCls[4], Bibliographic, ptr(false), EvidenceLexicon, KindURL},
		{"a URL value is bibliographic whatever the relation", predCls[5], Bibliographic, ptr(false), EvidenceValue, KindURL},
		{"checkable significance is a fact", predCls[6], Factual, nil, EvidenceValue, KindLiteral},
		{"judging significance is subjective", predCls[7], Subjective, ptr(false), EvidenceValue, KindLiteral},
		{"a criteria node restates the task", predCls[8], Meta, ptr(false), EvidenceLexicon, KindLiteral},
		{"type assignment", predCls[9], Organizational, nil, EvidenceLexicon, KindLiteral},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.got
			if got.Class != tc.want || got.Evidence != tc.ev || got.TailKind != tc.tail {
				t.Fatalf("%q = %s by %s, tail %s (%s), want %s by %s, tail %s", got.Relation, got.Class, got.Evidence, got.TailKind, got.Reason, tc.want, tc.ev, tc.tail)
			}
			if (got.AskedFor == nil) != (tc.asked == nil) || (got.AskedFor != nil && *got.AskedFor != *tc.asked) {
				t.Errorf("AskedFor = %v, want %v (%s)", deref(got.AskedFor), deref(tc.asked), got.Reason)
			}
			if got.Reason == "" {
				t.Error("empty reason")
			}
		})
	}
	ctx := NewGraphContext(gt, nil)
	if got, want := strings.Join(ctx.CategoryNodes(), ","), "Dim A,Dim B,Dim C,Topic"; got != want {
		t.Errorf("CategoryNodes = %s, want %s", got, want)
	}
	// One relation string, two classes: ClassifyGraph keeps the majority.
	byRel := map[string]Class{}
	for _, c := range ClassifyGraph(pred, gt) {
		byRel[c.Relation] = c.Class
	}
	if byRel["significance"] != Factual {
		t.Errorf("ClassifyGraph significance = %s, want the tie broken by class order (factual)", byRel["significance"])
	}
}

func TestValueKind(t *testing.T) {
	g := buildGraph([]kg.Triple{{Head: "Tecton", Relation: "founded", Tail: "2019"}})
	for _, tc := range []struct {
		in   string
		want ValueKind
	}{
		{"Tecton", KindEntity}, {"是", KindYesNo}, {"No — founded 2013", KindYesNo}, {"否（全部为男明星）", KindYesNo},
		{"是否", KindLiteral}, {"2019", KindDate}, {"2025年6月19日", KindDate}, {"August 2017", KindDate},
		{"2019-01-19", KindDate}, {"42所", KindNumber}, {"3 people", KindNumber}, {"$5.5M", KindNumber},
		{"96.2%", KindNumber}, {"~4.5/5", KindNumber}, {"https://www.uber.com/blog/x/", KindURL}, {"edit.wti.org", KindURL},
		{"10.14778/3476311.3476402", KindIdentifier}, {"arXiv:1909.05372", KindIdentifier}, {"feast-dev/feast", KindIdentifier},
		{"00093792", KindIdentifier}, {"Life Simulation", KindLiteral}, {"上海", KindLiteral},
		{"Character.ai", KindLiteral}, {"Socket.IO", KindLiteral}, {"Node.js", KindLiteral},
	} {
		if got := valueKind(tc.in, g); got != tc.want {
			t.Errorf("valueKind(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestFoldTermSplitsScripts(t *testing.T) {
	for in, want := range map[string]string{
		"arXiv编号": "arxiv 编号", "GitHub仓库": "github 仓库", "Steam_Best_of_2025_tier": "steam best of 2025 tier",
		"ratings": "rating", "doing": "doing", "发表期刊": "发表期刊",
	} {
		if got := foldTerm(in); got != want {
			t.Errorf("foldTerm(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseLexiconErrors(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"fields", "meta\tx\n"},
		{"class", "nonsense\tx\ty\n"},
		{"empty term", "meta\tx\t...\n"},
		{"five fields", "meta\tx\ty\twhy\textra\n"},
		{"empty head term", "meta\tx\thead:\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseLexicon([]byte(tc.in)); err == nil {
				t.Error("want error")
			}
		})
	}
	if len(DefaultLexicon().Entries()) < 100 {
		t.Error("default lexicon too small")
	}
}

func TestParseLexiconPlacesAndReasons(t *testing.T) {
	l, err := ParseLexicon([]byte("# c\nmeta\tcriteria\thead:User criteria\ta criteria node\norganizational\tinstance\t=是\nsubjective\tevaluative\ttail:最\nmeta\tsource\tcategory:source\tprovenance\n"))
	if err != nil {
		t.Fatal(err)
	}
	es := l.Entries()
	if len(es) != 4 {
		t.Fatalf("%d entries", len(es))
	}
	want := map[string]string{"User criteria": "head", "是": "exact", "最": "tail", "source": "category"}
	for _, e := range es {
		if want[e.Term] != e.Where {
			t.Errorf("%q: where %q, want %q", e.Term, e.Where, want[e.Term])
		}
	}
	if es[0].Why != "a criteria node" && es[1].Why != "a criteria node" && es[2].Why != "a criteria node" {
		t.Errorf("why lost: %+v", es)
	}
	if got := l.Match("是否为亚洲公司品牌"); len(got) != 0 {
		t.Errorf("exact term matched inside a longer relation: %+v", got)
	}
	if got := l.Match("是"); len(got) != 1 {
		t.Errorf("exact term: %+v", got)
	}
	if got := l.Match("source"); len(got) != 0 {
		t.Errorf("a category entry matched as a relation term: %+v", got)
	}
	if _, ok := l.categoryTerm("Source"); !ok {
		t.Error("category entry not found for the whole relation")
	}
	if _, ok := l.categoryTerm("data source"); ok {
		t.Error("category entry matched inside a longer relation")
	}
	// Every shipped entry added for issue 15 carries its reason.
	for _, e := range DefaultLexicon().Entries() {
		if e.Where != "relation" && e.Why == "" {
			t.Errorf("%s %q (%s) has no why", e.Kind, e.Term, e.Where)
		}
	}
}

// FuzzParseLexicon: any input either parses into entries with non-empty
// folded terms and a known place, or is rejected with an error; no panic.
func FuzzParseLexicon(f *testing.F) {
	f.Add([]byte("meta\tcriteria\thead:criteria\twhy\n"))
	f.Add([]byte("organizational\tinstance\t=是\n# comment\n\n"))
	f.Add([]byte("bibliographic\tidentifier\tarXiv编号\n"))
	f.Add([]byte("meta\tsource\tcategory:source\twhy\nmeta\tverification\ttail:待确认\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLexicon(b)
		if err != nil {
			return
		}
		for _, e := range l.Entries() {
			if e.norm == "" || (e.Where != "relation" && e.Where != "exact" && e.Where != "head" && e.Where != "tail" && e.Where != "category") {
				t.Fatalf("bad entry %+v", e)
			}
		}
		l.Match(string(b))
		l.classify(string(b))
		l.verificationStatus(string(b))
		l.categoryTerm(string(b))
	})
}

func ptr(b bool) *bool { return &b }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// A relation that names how two things are linked is factual even from a
// category node; plain children of the node stay scaffolding.
func TestRelationTermBeatsCategoryNode(t *testing.T) {
	gt := []kg.Triple{
		{Head: "Topic", Relation: "covers_dimension", Tail: "Debates"},
		{Head: "Topic", Relation: "covers_dimension", Tail: "Actors"},
		{Head: "Topic", Relation: "covers_dimension", Tail: "Rules"},
		{Head: "Debates", Relation: "doctrinal_school", Tail: "School A"},
		{Head: "Debates", Relation: "related_rule", Tail: "Rule 6"},
		{Head: "Debates", Relation: "successor_project", Tail: "Project 3.0"},
		{Head: "School A", Relation: "representative_scholar", Tail: "Scholar"},
		{Head: "Rule 6", Relation: "text", Tail: "due diligence"},
		{Head: "Project 3.0", Relation: "started", Tail: "2021"},
		{Head: "Actors", Relation: "member", Tail: "Scholar"},
		{Head: "Rules", Relation: "member", Tail: "Rule 6"},
	}
	cls := ClassifyTriples(gt, nil)
	for i, want := range map[int]Class{3: Organizational, 4: Factual, 5: Factual} {
		if cls[i].Class != want {
			t.Errorf("%v: %s (%s), want %s", gt[i], cls[i].Class, cls[i].Reason, want)
		}
	}
}

// TestClassifyTriplesThirdRound checks the value rules of the third tuning
// round: a "+"-joined list is what a thing consists of; significance judges
// only with an evaluative word; a score on a rating scale is an opinion; a
// number under a membership term is a count.
func TestClassifyTriplesThirdRound(t *testing.T) {
	runTripleCases(t, []tripleCase{
		{"a + list of components is a fact", kg.Triple{Head: "整合子", Relation: "核心组成", Tail: "整合酶基因（intI）+ 附着位点（attI）+ 启动子"}, Factual},
		{"C++ is one item", kg.Triple{Head: "Course", Relation: "includes", Tail: "C++"}, Organizational},
		{"cornerstone judges", kg.Triple{Head: "Prospect Theory", Relation: "significance", Tail: "cornerstone of behavioral economics"}, Subjective},
		{"widely used is a fact", kg.Triple{Head: "青霉素酶", Relation: "历史意义", Tail: "在青霉素广泛临床使用之前就已被发现"}, Factual},
		{"a score on a rating scale is an opinion", kg.Triple{Head: "Hotel A", Relation: "guest score", Tail: "4.5/5"}, Subjective},
		{"out of 10", kg.Triple{Head: "Game B", Relation: "IGN", Tail: "8.5 out of 10"}, Subjective},
		{"a share is not a rating", kg.Triple{Head: "AMR", Relation: "非洲耐药感染比例", Tail: "约1/5"}, Factual},
		{"an official grade is not a rating: it puts the head in a class, as 医院等级", kg.Triple{Head: "Hotel A", Relation: "grade", Tail: "5 stars"}, Organizational},
		{"a vetoed score stays a fact", kg.Triple{Head: "Pathogen", Relation: "MCDA评分", Tail: "8.4/10"}, Factual},
		{"a number under a list term is a count", kg.Triple{Head: "2026 QS", Relation: "上榜", Tail: "72所"}, Factual},
		{"members are members", kg.Triple{Head: "Union", Relation: "成员国", Tail: "贝宁、马里"}, Organizational},
	})
}

// tripleCase is one triple classified alone (as a GT graph of one triple).
type tripleCase struct {
	name string
	tr   kg.Triple
	want Class
}

func runTripleCases(t *testing.T, cases []tripleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ClassifyTriples([]kg.Triple{tc.tr}, nil)[0]
			if got.Class != tc.want {
				t.Errorf("%v = %s (%s), want %s", tc.tr, got.Class, got.Reason, tc.want)
			}
		})
	}
}

func TestClassifyTriplesFourthAndFifthRounds(t *testing.T) {
	// A topic root with three entity children makes "Dim" a category node.
	scaffold := []kg.Triple{
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim"},
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim 2"},
		{Head: "Topic", Relation: "covers_dimension", Tail: "Dim 3"},
		{Head: "Dim", Relation: "key_person", Tail: "Person"},
		{Head: "Dim 2", Relation: "key_person", Tail: "Person"},
		{Head: "Dim 3", Relation: "key_person", Tail: "Person"},
		{Head: "Person", Relation: "born", Tail: "1950"},
	}
	runTripleCases(t, []tripleCase{
		{"a checkable contribution is a fact", kg.Triple{Head: "A Behavioral Model", Relation: "contribution to nudge evolution", Tail: "Introduced satisficing as alternative to optimizing"}, Factual},
		{"a judging contribution is subjective", kg.Triple{Head: "Judgment under Uncertainty", Relation: "contribution to nudge evolution", Tail: "Catalogued heuristics; foundational to the field"}, Subjective},
		{"choosing the core contribution judges", kg.Triple{Head: "Paper", Relation: "核心贡献", Tail: "特征存储数据管道优化"}, Subjective},
		{"what a critique argues is its content", kg.Triple{Head: "Taking Liberties", Relation: "critique type", Tail: "Philosophical: argues paternalists cannot identify true preferences"}, Factual},
		{"judging a critique is subjective", kg.Triple{Head: "Book", Relation: "critique type", Tail: "Balanced scrutiny of paternalism"}, Subjective},
		{"an honorific epithet judges", kg.Triple{Head: "Brånemark", Relation: "known as", Tail: "father of modern implantology"}, Subjective},
		{"an alias is a fact", kg.Triple{Head: "Titanium Grade 4", Relation: "also known as", Tail: "commercially pure titanium (CP Ti)"}, Factual},
		{"a status leading the value is meta", kg.Triple{Head: "BTI UnicCa", Relation: "certification validity", Tail: "uncertain — last documented renewal was for 2021"}, Meta},
		{"a status inside a statement is not", kg.Triple{Head: "Treaty", Relation: "outcome", Tail: "the ratification remains uncertain"}, Factual},
		{"a short CJK status is meta", kg.Triple{Head: "医院", Relation: "医院等级", Tail: "三甲待确认"}, Meta},
		{"a hedged CJK statement is not", kg.Triple{Head: "vanZ", Relation: "功能", Tail: "可能与替考拉宁耐药相关（功能待确认）"}, Factual},
		{"a data gap is meta", kg.Triple{Head: "In-Kone", Relation: "Material", Tail: "Not specified"}, Meta},
		{"a report's year is its publication year", kg.Triple{Head: "Delors Report", Relation: "发布年份", Tail: "1989"}, Bibliographic},
		{"a framework's year is a fact", kg.Triple{Head: "EAST Framework", Relation: "release_year", Tail: "2014"}, Factual},
		{"a journal citation in the value", kg.Triple{Head: "mecA基因", Relation: "首次克隆", Tail: "Matsuhashi M等人, Journal of Bacteriology, 1986; 167:975–980"}, Bibliographic},
		{"a representative member of a class", kg.Triple{Head: "Ambler A类", Relation: "代表性碳青霉烯酶", Tail: "KPC"}, Organizational},
		{"a numbered class", kg.Triple{Head: "抗生素耐药机制", Relation: "第一类", Tail: "酶促降解/修饰"}, Organizational},
		{"a person's works are not membership", kg.Triple{Head: "陈都灵", Relation: "代表作", Tail: "《苍兰诀》《左耳》"}, Factual},
	})
	t.Run("a dimension's source is provenance, an entity's is a fact", func(t *testing.T) {
		g := append(append([]kg.Triple(nil), scaffold...),
			kg.Triple{Head: "Dim", Relation: "source", Tail: "Lawfare"},
			kg.Triple{Head: "Person", Relation: "source", Tail: "Charter of the United Nations"})
		cls := ClassifyTriples(g, nil)
		if got := cls[len(g)-2]; got.Class != Meta || got.Evidence != EvidenceStructure {
			t.Errorf("Dim source = %s by %s (%s), want meta by structure", got.Class, got.Evidence, got.Reason)
		}
		if got := cls[len(g)-1]; got.Class != Factual {
			t.Errorf("Person source = %s (%s), want factual", got.Class, got.Reason)
		}
	})
}

// TestClassifyTriplesSixthRound covers the rules of the sixth round, each
// with a look-alike that must keep its class.
func TestClassifyTriplesSixthRound(t *testing.T) {
	runTripleCases(t, []tripleCase{
		{"the search found nothing", kg.Triple{Head: "Kintamani area", Relation: "Chinese restaurant availability", Tail: "None found"}, Meta},
		{"no … found is the search", kg.Triple{Head: "Desa Oculus", Relation: "vegetarian labeling method", Tail: "No dedicated section or symbols found on menu"}, Meta},
		{"an absence in the world is a fact", kg.Triple{Head: "Desa Oculus", Relation: "vegetarian labeling", Tail: "No vegetarian labels on menu"}, Factual},
		{"a yes/no answer with a gloss is not a search note", kg.Triple{Head: "Global D", Relation: "founded before 2005", Tail: "No — nothing found before 2012"}, Factual},
		{"a CJK not-found value", kg.Triple{Head: "Manchester MSc Economics", Relation: "Business Economics模块", Tail: "未发现该模块"}, Meta},
		{"not published officially", kg.Triple{Head: "太和殿", Relation: "文物陈设数量", Tail: "官方未公布具体件数"}, Meta},
		{"data insufficient", kg.Triple{Head: "万寿桥站", Relation: "附近支行", Tail: "数据不足"}, Meta},
		{"a website as the source is provenance", kg.Triple{Head: "西班牙首都信息", Relation: "来源", Tail: "spain.info 西班牙官方旅游网站"}, Meta},
		{"a law as the source is a fact", kg.Triple{Head: "Article 51", Relation: "source", Tail: "Charter of the United Nations"}, Factual},
		{"a bare recommendation verdict", kg.Triple{Head: "防晒乳", Relation: "敏感肌适合度", Tail: "慎用"}, Subjective},
		{"a verdict under a class term keeps the class", kg.Triple{Head: "Drug", Relation: "guideline class", Tail: "Recommended"}, Organizational},
		{"a described nature is a fact", kg.Triple{Head: "CMA", Relation: "制度性质", Tail: "非完全货币联盟——无共同央行，货币政策由南非储备银行主导"}, Factual},
		{"a nature label is a class", kg.Triple{Head: "首钢集团", Relation: "股东性质", Tail: "地方国有"}, Organizational},
		{"a glossed class label is still a label", kg.Triple{Head: "KPC", Relation: "Ambler分类", Tail: "A类（丝氨酸β-内酰胺酶）"}, Organizational},
		{"a described classification tool is a fact", kg.Triple{Head: "E³几何", Relation: "分类工具", Tail: "Bieberbach定理（1911–1912）：无挠三维晶体群"}, Factual},
		{"belonging to an alliance is membership", kg.Triple{Head: "加拿大航空", Relation: "所属联盟", Tail: "星空联盟"}, Organizational},
		{"belonging to a parent group is ownership", kg.Triple{Head: "品牌", Relation: "所属集团", Tail: "欧莱雅集团"}, Factual},
		{"the date of joining is an event", kg.Triple{Head: "阿曼航空", Relation: "加入联盟时间", Tail: "2025年6月"}, Factual},
		{"a longer record term beats a note", kg.Triple{Head: "Paper 14a (2013)", Relation: "publication note", Tail: "E-published January 3, 2013"}, Bibliographic},
		{"a note alone is about the answer", kg.Triple{Head: "Paper 14a (2013)", Relation: "note", Tail: "dates from the journal's site"}, Meta},
		{"a record field a measure would veto", kg.Triple{Head: "BPST instanton paper", Relation: "page count", Tail: "3 pages"}, Bibliographic},
		{"a treaty's definition criteria are content", kg.Triple{Head: "1958 Geneva Convention", Relation: "Article 1 definition criteria", Tail: "adjacency, 200-metre depth, exploitability"}, Factual},
		{"the user's criteria are meta", kg.Triple{Head: "Brand", Relation: "meets criteria", Tail: "Yes"}, Meta},
		{"a crime score is a measure", kg.Triple{Head: "Oxford", Relation: "城市犯罪评分(每千人)", Tail: "12.3"}, Factual},
		{"an example of a class is a member", kg.Triple{Head: "Strategy 2: controlled doping", Relation: "example", Tail: "Ca doping of Bi₂Se₃"}, Organizational},
		{"a standing that judges", kg.Triple{Head: "Barberis, Huang & Santos (2001)", Relation: "在研究链条中的地位", Tail: "里程碑论文：首个将前景理论嵌入均衡资产定价的模型"}, Subjective},
		{"a checkable standing is a fact", kg.Triple{Head: "条约", Relation: "法律地位", Tail: "1994年生效"}, Factual},
		{"a past is-a link", kg.Triple{Head: "L'Ambroisie", Relation: "was a", Tail: "3-Michelin-star restaurant (until March 2026)"}, Organizational},
		{"a value naming the user's requirements is filtering", kg.Triple{Head: "四川大熊猫栖息地", Relation: "纳入时间分组", Tail: "2000-2009年（不符合用户时间要求，排除）"}, Meta},
		{"a group without the user is a group", kg.Triple{Head: "四川大熊猫栖息地", Relation: "纳入时间分组", Tail: "2000-2009年"}, Organizational},
		{"a share is a measure", kg.Triple{Head: "CCPR", Relation: "2024年跟进评估中E级比例", Tail: "8.6%"}, Factual},
		{"a deadline is a fact of a procedure", kg.Triple{Head: "CAT", Relation: "跟进报告中国家答复期限", Tail: "90天"}, Factual},
		{"a published rank is not an opinion", kg.Triple{Head: "上海市精神卫生中心", Relation: "专科声誉排名（2023）", Tail: "全国第2名"}, Factual},
		{"a citation rank stays a record field", kg.Triple{Head: "Wu & Gonzalez (1996)", Relation: "被引排名", Tail: "参数估计研究中第4"}, Bibliographic},
		{"a dosing instruction is not the answer's suggestion", kg.Triple{Head: "抗抑郁药服药时间建议——度洛西汀", Relation: "建议服药时间", Tail: "餐后服"}, Factual},
	})
	t.Run("a work is known by two kinds of record field; its bare year is the publication year", func(t *testing.T) {
		g := []kg.Triple{
			{Head: "Code Motion of Control Structures", Relation: "venue", Tail: "POPL '86"},
			{Head: "Code Motion of Control Structures", Relation: "authors", Tail: "Ron Cytron"},
			{Head: "Code Motion of Control Structures", Relation: "year", Tail: "1986"},
			{Head: "Kneser素分解", Relation: "发表期刊", Tail: "Jahresbericht der DMV"},
			{Head: "Kneser素分解", Relation: "期刊卷页", Tail: "38: 248–260"},
			{Head: "Kneser素分解", Relation: "证明年份", Tail: "1929"},
			{Head: "Hades 2", Relation: "publisher", Tail: "Supergiant Games"},
			{Head: "Hades 2", Relation: "year", Tail: "2025"},
		}
		wantClasses(t, g, map[int]Class{2: Bibliographic, 5: Factual, 7: Factual})
	})
	t.Run("a link between two published works is a citation", func(t *testing.T) {
		g := []kg.Triple{
			{Head: "Paper 3 (1995)", Relation: "builds on", Tail: "Paper 2 (1993)"},
			{Head: "Paper 2 (1993)", Relation: "first author", Tail: "Mojica"},
			{Head: "Paper 3 (1995)", Relation: "significance", Tail: "the most influential paper of the decade"},
		}
		// A class term decides before the citation rule: significance stays subjective.
		wantClasses(t, g, map[int]Class{0: Bibliographic, 2: Subjective})
	})
	t.Run("a suggestion node recommends", func(t *testing.T) {
		wantClasses(t, []kg.Triple{{Head: "Suggested 10-day itinerary", Relation: "stop 1 (Days 1-4)", Tail: "Ubud — wellness"}}, map[int]Class{0: Subjective})
	})
	t.Run("several roots are entities, one root is a topic", func(t *testing.T) {
		var g []kg.Triple
		for _, st := range []string{"培风站", "青羊宫站"} {
			for _, b := range []string{"工商银行", "建设银行", "农业银行"} {
				g = append(g, kg.Triple{Head: st, Relation: "附近支行", Tail: st + b})
				g = append(g, kg.Triple{Head: st + b, Relation: "地址", Tail: "成都"})
			}
		}
		for i, c := range ClassifyTriples(g, nil) {
			if g[i].Relation == "附近支行" && c.Class != Factual {
				t.Errorf("%v = %s (%s), want factual: two stations are not a topic root", g[i], c.Class, c.Reason)
			}
		}
		one := g[:6]
		if c := ClassifyTriples(one, nil)[0]; c.Class != Organizational || c.Evidence != EvidenceStructure {
			t.Errorf("single root %v = %s by %s, want organizational by structure", one[0], c.Class, c.Evidence)
		}
	})
}

// wantClasses classifies graph g (no reference) and checks the class of the
// triples at the given indexes.
func wantClasses(t *testing.T, g []kg.Triple, want map[int]Class) {
	t.Helper()
	cls := ClassifyTriples(g, nil)
	for i, w := range want {
		if cls[i].Class != w {
			t.Errorf("%v = %s (%s), want %s", g[i], cls[i].Class, cls[i].Reason, w)
		}
	}
}

// FuzzClassifyTriple feeds arbitrary text to the value rules (not-found,
// user criteria, sources, verdicts, labels, glosses) and the lexicon scans:
// every triple gets a valid class, the same one twice.
func FuzzClassifyTriple(f *testing.F) {
	f.Add("Kintamani area", "availability", "None found")
	f.Add("西班牙首都信息", "来源", "spain.info 西班牙官方旅游网站")
	f.Add("景区", "纳入时间分组", "2000-2009年（不符合用户时间要求，排除）")
	f.Add("KPC", "Ambler分类", "A类（丝氨酸β-内酰胺酶")
	f.Add("Paper 3 (1995)", "builds on", "Paper 2 (1993)")
	f.Add("\xff", "source", "www.\xfe.com")
	valid := map[Class]bool{}
	for _, c := range Classes {
		valid[c] = true
	}
	f.Fuzz(func(t *testing.T, head, rel, tail string) {
		g := []kg.Triple{{Head: head, Relation: rel, Tail: tail}, {Head: tail, Relation: rel, Tail: head}}
		a, b := ClassifyTriples(g, nil), ClassifyTriples(g, g)
		for i := range g {
			if !valid[a[i].Class] || a[i].Class != b[i].Class {
				t.Fatalf("%v: %q then %q", g[i], a[i].Class, b[i].Class)
			}
		}
	})
}
