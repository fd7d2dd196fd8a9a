//! For the tests: the integer index arithmetic of a kernel, read from the kernel file itself and
//! evaluated on the CPU, so that a test of the host's tables against the kernel's mapping of
//! pixels and groups fails when either side changes alone.
//!
//! It knows `const int` (and `const bool`) declarations of integers, `+ - * / %`, `<`, `abs`,
//! `min`, parentheses, and names with a dot such as `blockIdx.x`: what the mapping lines of
//! `kernels/ch07-imaging-*.cu` use. C's integer division and remainder truncate, as Rust's do.

use std::collections::HashMap;

/// The names the kernel's lines define or read, and their values.
pub type Env = HashMap<String, i64>;

/// The text between `// ANCHOR: name` and `// ANCHOR_END: name` in `source`.
pub fn anchor<'a>(source: &'a str, name: &str) -> &'a str {
    let start = format!("// ANCHOR: {name}\n");
    let end = format!("// ANCHOR_END: {name}");
    let from = source
        .find(&start)
        .expect("the anchor is in the kernel file")
        + start.len();
    let to = from + source[from..].find(&end).expect("the anchor ends");
    &source[from..to]
}

/// Evaluate, in order, every `const int` or `const bool` declaration in `text` into `env`.
pub fn declarations(text: &str, env: &mut Env) {
    for line in text.lines().map(str::trim) {
        let Some(rest) = line
            .strip_prefix("const int ")
            .or_else(|| line.strip_prefix("const bool "))
        else {
            continue;
        };
        let rest = rest.strip_suffix(';').expect("a declaration on one line");
        for decl in split_top_level(rest) {
            let (name, expr) = decl.split_once('=').expect("a declaration with a value");
            let value = eval(expr, env);
            env.insert(name.trim().to_string(), value);
        }
    }
}

/// The index expression of the first `array[...]` in `text`, evaluated in `env`.
pub fn index_of(text: &str, array: &str, env: &Env) -> i64 {
    let open = format!("{array}[");
    let from = text.find(&open).expect("the array is indexed") + open.len();
    let mut depth = 1;
    let len = text[from..]
        .char_indices()
        .find_map(|(i, c)| {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })
        .expect("the index ends");
    eval(&text[from..from + len], env)
}

/// Split at the commas outside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Num(i64),
    Name(String),
    Op(char),
}

fn tokens(s: &str) -> Vec<Token> {
    let cs: Vec<char> = s.chars().collect();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < cs.len() && cs[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = cs[start..i].iter().collect();
            out.push(Token::Num(digits.parse().expect("an integer")));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_' || cs[i] == '.') {
                i += 1;
            }
            out.push(Token::Name(cs[start..i].iter().collect()));
        } else if "+-*/%<(),".contains(c) {
            out.push(Token::Op(c));
            i += 1;
        } else {
            panic!("`{c}` in `{s}` is beyond this evaluator");
        }
    }
    out
}

/// Evaluate one integer expression; a comparison gives 0 or 1, as in C.
pub fn eval(expr: &str, env: &Env) -> i64 {
    let toks = tokens(expr);
    let mut p = Parser { toks, at: 0, env };
    let value = p.comparison();
    assert_eq!(p.at, p.toks.len(), "`{expr}` was not read to its end");
    value
}

struct Parser<'a> {
    toks: Vec<Token>,
    at: usize,
    env: &'a Env,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, op: char) -> bool {
        if self.peek() == Some(&Token::Op(op)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn comparison(&mut self) -> i64 {
        let left = self.sum();
        if self.eat('<') {
            i64::from(left < self.sum())
        } else {
            left
        }
    }

    fn sum(&mut self) -> i64 {
        let mut value = self.product();
        loop {
            if self.eat('+') {
                value += self.product();
            } else if self.eat('-') {
                value -= self.product();
            } else {
                return value;
            }
        }
    }

    fn product(&mut self) -> i64 {
        let mut value = self.unary();
        loop {
            if self.eat('*') {
                value *= self.unary();
            } else if self.eat('/') {
                value /= self.unary();
            } else if self.eat('%') {
                value %= self.unary();
            } else {
                return value;
            }
        }
    }

    fn unary(&mut self) -> i64 {
        if self.eat('-') {
            return -self.unary();
        }
        match self.toks.get(self.at).cloned() {
            Some(Token::Num(n)) => {
                self.at += 1;
                n
            }
            Some(Token::Op('(')) => {
                self.at += 1;
                let value = self.comparison();
                assert!(self.eat(')'), "a parenthesis left open");
                value
            }
            Some(Token::Name(name)) => {
                self.at += 1;
                if self.eat('(') {
                    let mut args = vec![self.comparison()];
                    while self.eat(',') {
                        args.push(self.comparison());
                    }
                    assert!(self.eat(')'), "a call left open");
                    match (name.as_str(), args.as_slice()) {
                        ("abs", [x]) => x.abs(),
                        ("min", [x, y]) => *x.min(y),
                        _ => panic!("`{name}` is beyond this evaluator"),
                    }
                } else {
                    *self
                        .env
                        .get(&name)
                        .unwrap_or_else(|| panic!("`{name}` has no value"))
                }
            }
            t => panic!("unexpected {t:?}"),
        }
    }
}

#[test]
fn the_evaluator_reads_c() {
    let mut env = Env::from([("p".to_string(), 17), ("width".to_string(), 5)]);
    declarations(
        "const int col = p % width, row = p / width, c = width / 2;\n\
         const int a = abs(col - c), image = (col < c) + 2 * (row < c);\n\
         const float2 x = parts[4 * (row * (c + 1) + a) + image];",
        &mut env,
    );
    assert_eq!(
        (env["col"], env["row"], env["a"], env["image"]),
        (2, 3, 0, 0)
    );
    assert_eq!(
        index_of("x = parts[4 * (row * (c + 1) + a) + image];", "parts", &env),
        36
    );
    assert_eq!(eval("min(3, -2 - 1) * (1 < 2)", &env), -3);
}
