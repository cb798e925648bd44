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
		{"an official grade is not a rating", kg.Triple{Head: "Hotel A", Relation: "grade", Tail: "5 stars"}, Factual},
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
