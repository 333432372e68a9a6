// SparkOracle runs Spark's own lexer (and, for literals, its parser) on
// texts read from stdin, separated by NUL bytes, for TestAgainstSpark.
// Needs Spark's jars on the class path; see oracle_test.go.
//
//	java SparkOracle lex      one line per token: NAME start end channel,
//	                          byte offsets; then "= unclosed=<bool>"
//	java SparkOracle unquote  one line per text: "OK <hex of UTF-8 value>"
//	                          or "ERR"
//	java SparkOracle keywords one line per keyword rule, in the grammar's
//	                          order: TOKEN reserved=<bool> strict=<bool>,
//	                          reserved meaning not in the parser's
//	                          ansiNonReserved rule, strict in its
//	                          strictNonReserved rule
import java.io.BufferedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.antlr.v4.runtime.BailErrorStrategy;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.Vocabulary;
import org.apache.spark.sql.catalyst.parser.SqlBaseParser;
import org.apache.spark.sql.catalyst.parser.SqlBaseLexer;
import org.apache.spark.sql.catalyst.parser.UpperCaseCharStream;

public class SparkOracle {
  public static void main(String[] args) throws Exception {
    String in = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
    PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
    if (args[0].equals("keywords")) {
      keywords(out);
      out.flush();
      return;
    }
    for (String s : in.split("\0", -1)) {
      if (args[0].equals("lex")) {
        lex(s, out);
      } else {
        unquote(s, out);
      }
    }
    out.flush();
  }

  static void lex(String s, PrintStream out) {
    int[] cps = s.codePoints().toArray();
    int[] off = new int[cps.length + 1];
    for (int k = 0; k < cps.length; k++) {
      off[k + 1] = off[k] + new String(Character.toChars(cps[k])).getBytes(StandardCharsets.UTF_8).length;
    }
    SqlBaseLexer lx = new SqlBaseLexer(new UpperCaseCharStream(CharStreams.fromString(s)));
    lx.removeErrorListeners();
    for (Token t = lx.nextToken(); t.getType() != Token.EOF; t = lx.nextToken()) {
      out.println(lx.getVocabulary().getSymbolicName(t.getType()) + " " + off[t.getStartIndex()] + " "
          + off[t.getStopIndex() + 1] + " " + t.getChannel());
    }
    out.println("= unclosed=" + lx.has_unclosed_bracketed_comment);
  }

  static void unquote(String s, PrintStream out) {
    try {
      Object e = org.apache.spark.sql.catalyst.parser.CatalystSqlParser$.MODULE$.parseExpression(s);
      if (!(e instanceof org.apache.spark.sql.catalyst.expressions.Literal)) {
        out.println("ERR");
        return;
      }
      Object v = ((org.apache.spark.sql.catalyst.expressions.Literal) e).value();
      byte[] b = v.toString().getBytes(StandardCharsets.UTF_8);
      if (v instanceof org.apache.spark.unsafe.types.UTF8String) {
        b = ((org.apache.spark.unsafe.types.UTF8String) v).getBytes();
      }
      StringBuilder sb = new StringBuilder("OK ");
      for (byte x : b) {
        sb.append(String.format("%02x", x));
      }
      out.println(sb);
    } catch (Throwable t) {
      out.println("ERR");
    }
  }

  static void keywords(PrintStream out) throws Exception {
    Vocabulary v = SqlBaseLexer.VOCABULARY;
    for (int t = SqlBaseLexer.ADD; t <= SqlBaseLexer.ZONE; t++) {
      String name = v.getSymbolicName(t);
      String lit = v.getLiteralName(t);
      // The two rules with several spellings have no literal name.
      String text = lit != null ? lit.substring(1, lit.length() - 1) : name;
      out.println(name + " reserved=" + !matches(text, "ansiNonReserved") + " strict=" + matches(text, "strictNonReserved"));
    }
  }

  // matches reports whether the parser rule accepts exactly the text.
  static boolean matches(String text, String rule) throws Exception {
    SqlBaseLexer lx = new SqlBaseLexer(new UpperCaseCharStream(CharStreams.fromString(text)));
    lx.removeErrorListeners();
    SqlBaseParser p = new SqlBaseParser(new CommonTokenStream(lx));
    p.removeErrorListeners();
    p.setErrorHandler(new BailErrorStrategy());
    try {
      SqlBaseParser.class.getMethod(rule).invoke(p);
    } catch (Exception e) {
      return false;
    }
    return p.getCurrentToken().getType() == Token.EOF;
  }
}
