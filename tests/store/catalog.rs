//! Catalog CSV import and preview: the accepted formats (comma, semicolon with decimal comma,
//! quotes, BOM), per-line errors with their line numbers, exact prices, and that the preview
//! writes nothing.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed unwrap is a failed test with its location"
)]

use paydesk::domain::{BarcodeError, CatalogLookup, CatalogVariant, Currency, UnknownCode};
use paydesk::lang::Lang;
use paydesk::store::{
    CATALOG_FILE_LIMIT, CsvFileProblem, CsvLineError, CsvProblem, QuoteMistake, Separator, Store,
    StoreError, read_catalog_file,
};
use rust_decimal::Decimal;

fn variant(id: &str, name: &str, price: &str, currency: Currency) -> CatalogVariant {
    CatalogVariant {
        id: id.into(),
        name: name.into(),
        unit_price: price.parse::<Decimal>().unwrap(),
        currency,
        barcode: None,
    }
}

#[test]
fn a_comma_file_with_quotes_imports_exactly() {
    let csv = "id,name,unit_price,currency\n\
               v-1,\"Kazak, yün\",1250.50,TRY\n\
               v-2,\"12\"\" pizza\",12,usd\r\n\
               v-3,Çay,100,JPY\n";
    let mut store = Store::open_in_memory().unwrap();
    let result = store.catalog_import_csv(csv.as_bytes()).unwrap();
    assert_eq!(result.imported, 3);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let list = store.catalog().list().unwrap();
    assert_eq!(
        list,
        [
            variant("v-2", "12\" pizza", "12.00", Currency::Usd),
            variant("v-1", "Kazak, yün", "1250.50", Currency::Try),
            variant("v-3", "Çay", "100", Currency::Jpy),
        ]
    );
    assert_eq!(list[1].unit_price.to_string(), "1250.50");
    let map = store.catalog().map().unwrap();
    assert_eq!(map.variant("v-3").unwrap().unit_price.to_string(), "100");
    assert!(map.variant("v-9").is_none());
}

#[test]
fn a_turkish_semicolon_file_with_decimal_commas_and_a_bom_imports() {
    let csv = "\u{feff}ID;Name;Unit_Price;Currency;Stok\n\
               a1;Kırmızı kazak;1250,50;TRY;4\n\
               a2;\"Etek; uzun\";99.90;try;2\n";
    let mut store = Store::open_in_memory().unwrap();
    let preview = store.catalog_preview_csv(csv.as_bytes()).unwrap();
    assert_eq!(preview.separator, Separator::Semicolon);
    assert_eq!(
        preview.variants,
        [
            variant("a1", "Kırmızı kazak", "1250.50", Currency::Try),
            variant("a2", "Etek; uzun", "99.90", Currency::Try),
        ]
    );
    assert!(
        store.catalog().list().unwrap().is_empty(),
        "the preview wrote nothing"
    );
    assert_eq!(
        store.catalog_import_csv(csv.as_bytes()).unwrap().imported,
        2
    );
    assert_eq!(store.catalog().list().unwrap().len(), 2);
}

#[test]
fn bad_lines_are_reported_with_their_numbers_and_good_lines_still_import() {
    let csv = "id,name,unit_price,currency\n\
               ok-1,Good,10.00,TRY\n\
               ,No id,1,TRY\n\
               n-1,,1,TRY\n\
               c-1,Bad currency,1,XYZ\n\
               p-1,Too precise,1.234,TRY\n\
               p-2,Yen cents,10.5,JPY\n\
               p-3,Zero,0,TRY\n\
               s-1,Short,1\n\
               q-1,\"unclosed,1,TRY\n";
    let mut store = Store::open_in_memory().unwrap();
    let result = store.catalog_import_csv(csv.as_bytes()).unwrap();
    assert_eq!(result.imported, 1);
    let lines: Vec<usize> = result.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, [3, 4, 5, 6, 7, 8, 9, 10]);
    let price = |t: &str| t.to_owned();
    let expect = [
        (3, CsvProblem::EmptyId),
        (4, CsvProblem::EmptyName { id: "n-1".into() }),
        (
            5,
            CsvProblem::Currency(UnknownCode {
                value: "XYZ".into(),
                allowed: "TRY, USD, EUR, GBP, JPY, CHF, RUB, AZN".into(),
            }),
        ),
        (
            6,
            CsvProblem::PriceDecimals {
                price: price("1.234"),
                currency: Currency::Try,
            },
        ),
        (
            7,
            CsvProblem::PriceDecimals {
                price: price("10.5"),
                currency: Currency::Jpy,
            },
        ),
        (8, CsvProblem::PriceNotPositive { price: price("0") }),
        (
            9,
            CsvProblem::Columns {
                expected: 4,
                found: 3,
            },
        ),
        (10, CsvProblem::Quote(QuoteMistake::NotClosed)),
    ]
    .map(|(line, problem)| CsvLineError { line, problem });
    assert_eq!(result.errors, expect);
    let english: Vec<String> = result.errors.iter().map(|e| e.message(Lang::En)).collect();
    assert_eq!(
        english,
        [
            "the id is empty",
            "the name of `n-1` is empty",
            "the currency `XYZ` is not one of TRY, USD, EUR, GBP, JPY, CHF, RUB, AZN",
            "the unit price `1.234` has more decimals than TRY allows (2)",
            "the unit price `10.5` has more decimals than JPY allows (0)",
            "the unit price `0` must be greater than 0",
            "expected 4 columns, found 3",
            "a quoted field is not closed",
        ]
    );
    assert_eq!(
        store.catalog().list().unwrap(),
        [variant("ok-1", "Good", "10.00", Currency::Try)]
    );
}

#[test]
fn a_repeated_id_is_an_error_on_the_second_line() {
    let csv = "id,name,unit_price,currency\nv1,First,1,TRY\nv2,Other,2,TRY\nv1,Again,3,TRY\n";
    let store = Store::open_in_memory().unwrap();
    let parsed = store.catalog_preview_csv(csv.as_bytes()).unwrap();
    assert_eq!(parsed.variants.len(), 2);
    assert_eq!(
        parsed.errors,
        [CsvLineError {
            line: 4,
            problem: CsvProblem::DuplicateId {
                id: "v1".into(),
                first: 2
            }
        }]
    );
}

#[test]
fn importing_again_replaces_variants_by_id() {
    let mut store = Store::open_in_memory().unwrap();
    store
        .catalog_import_csv("id,name,unit_price,currency\nv1,Old,1,TRY\nv2,Kept,2,TRY\n".as_bytes())
        .unwrap();
    store
        .catalog_import_csv("id,name,unit_price,currency\nv1,New,5.5,EUR\n".as_bytes())
        .unwrap();
    assert_eq!(
        store.catalog().list().unwrap(),
        [
            variant("v2", "Kept", "2.00", Currency::Try),
            variant("v1", "New", "5.50", Currency::Eur),
        ]
    );
}

#[test]
fn files_that_cannot_be_read_at_all_are_refused_whole() {
    let store = Store::open_in_memory().unwrap();
    let cases: [(&[u8], CsvFileProblem, &str, &str); 5] = [
        (
            b"",
            CsvFileProblem::Empty,
            "the file is empty; it needs the header id,name,unit_price,currency",
            "dosya boş; id,name,unit_price,currency başlığı gerekli",
        ),
        (
            b"\n\n",
            CsvFileProblem::Empty,
            "the file is empty; it needs the header id,name,unit_price,currency",
            "dosya boş; id,name,unit_price,currency başlığı gerekli",
        ),
        (
            b"id,title,price\nv1,x,1\n",
            CsvFileProblem::Columns {
                line: 1,
                found: vec!["id".into(), "title".into(), "price".into()],
            },
            "line 1: the header must name the columns id, name, unit_price, currency; it has: id, title, price",
            "1. satır: başlık id, name, unit_price, currency sütunlarını içermeli; içindekiler: id, title, price",
        ),
        (
            b"\n\"id,name,unit_price,currency\n",
            CsvFileProblem::Header(CsvLineError {
                line: 2,
                problem: CsvProblem::Quote(QuoteMistake::NotClosed),
            }),
            "line 2: the header: a quoted field is not closed",
            "2. satır, başlık: tırnak içindeki bir alan kapatılmamış",
        ),
        (
            b"id,name,unit_price,currency\nv1,Kaz\xfdk,1,TRY\n",
            CsvFileProblem::NotUtf8,
            "the file is not UTF-8 text; save it from the spreadsheet as \"CSV UTF-8\"",
            "dosya UTF-8 metin değil; hesap tablosundan \"CSV UTF-8\" olarak kaydedin",
        ),
    ];
    for (bytes, want, en, tr) in cases {
        let err = store.catalog_preview_csv(bytes).unwrap_err();
        let StoreError::Csv(problem) = &err else {
            panic!("{want:?}: {err}");
        };
        assert_eq!(problem, &want);
        assert_eq!(problem.message(Lang::En), en);
        assert_eq!(problem.message(Lang::Tr), tr);
        assert_eq!(err.to_string(), format!("CSV: {en}"));
    }
}

fn code(text: &str) -> paydesk::domain::Barcode {
    text.parse().unwrap()
}

#[test]
fn a_barcode_column_is_found_by_name_checked_per_line_and_looked_up() {
    // The column anywhere in the header, any case; UPC-A written as a 13-digit EAN.
    let csv = "ID;Barcode;name;unit_price;currency\n\
               v1;4006381333931;Kalem;12,50;TRY\n\
               v2;0036000291452;Mendil;30;TRY\n\
               v3;;Simit;25;TRY\n\
               v4;4006381333937;Yanlış;1;TRY\n\
               v5;036000291452;Aynı kod;1;TRY\n\
               v6;36000291452;Sıfırsız;1;TRY\n\
               v7;40063813339x1;Harf;1;TRY\n\
               v8;1234;Dükkan kodu;5;TRY\n";
    let mut store = Store::open_in_memory().unwrap();
    let result = store.catalog_import_csv(csv.as_bytes()).unwrap();
    assert_eq!(result.imported, 4);
    let problems: Vec<(usize, &CsvProblem)> =
        result.errors.iter().map(|e| (e.line, &e.problem)).collect();
    assert_eq!(
        problems,
        [
            (
                5,
                &CsvProblem::Barcode {
                    text: "4006381333937".into(),
                    error: BarcodeError::CheckDigit {
                        found: 7,
                        expected: 1
                    }
                }
            ),
            (
                6,
                &CsvProblem::DuplicateBarcode {
                    barcode: code("036000291452"),
                    first: 3
                }
            ),
            (
                7,
                &CsvProblem::Barcode {
                    text: "36000291452".into(),
                    error: BarcodeError::Length(11)
                }
            ),
            (
                8,
                &CsvProblem::Barcode {
                    text: "40063813339x1".into(),
                    error: BarcodeError::NotDigit('x')
                }
            ),
        ]
    );
    let errors: Vec<(usize, String)> = result
        .errors
        .iter()
        .map(|e| (e.line, e.message(Lang::En)))
        .collect();
    let errors: Vec<(usize, &str)> = errors.iter().map(|(l, m)| (*l, m.as_str())).collect();
    assert_eq!(
        errors,
        [
            (
                5,
                "the barcode `4006381333937`: check digit is 7, expected 1: a digit was misread or mistyped"
            ),
            (
                6,
                "the barcode `036000291452` appears again (first on line 3)"
            ),
            (
                7,
                "the barcode `36000291452`: 11 digits long; a barcode has 8, 12, 13 or 14 digits (the shop's own codes 4 to 7) (a spreadsheet may have dropped its leading zeros: keep the column as text)"
            ),
            (
                8,
                "the barcode `40063813339x1`: only digits are allowed; `x` is not one"
            ),
        ]
    );
    let found = store
        .catalog()
        .by_barcode(&code("4006381333931"))
        .unwrap()
        .unwrap();
    assert_eq!((found.id.as_str(), found.name.as_str()), ("v1", "Kalem"));
    // Stored in the shortest form: a scan of either form finds it.
    let tissue = store
        .catalog()
        .by_barcode(&code("036000291452"))
        .unwrap()
        .unwrap();
    assert_eq!(tissue.id, "v2");
    assert_eq!(tissue.barcode, Some(code("0036000291452")));
    assert_eq!(
        tissue
            .barcode
            .as_ref()
            .map(paydesk::domain::Barcode::as_str),
        Some("036000291452")
    );
    assert_eq!(
        store
            .catalog()
            .by_barcode(&code("1234"))
            .unwrap()
            .map(|v| v.id),
        Some("v8".to_owned())
    );
    assert!(
        store
            .catalog()
            .by_barcode(&code("5901234123457"))
            .unwrap()
            .is_none()
    );
    let simit = store.catalog().map().unwrap().remove("v3").unwrap();
    assert_eq!(simit.barcode, None);
}

#[test]
fn a_file_without_the_column_keeps_barcodes_and_a_file_with_it_says_what_they_are() {
    let mut store = Store::open_in_memory().unwrap();
    let barcodes = |store: &Store| -> Vec<(String, Option<String>)> {
        store
            .catalog()
            .list()
            .unwrap()
            .into_iter()
            .map(|v| (v.id, v.barcode.map(String::from)))
            .collect()
    };
    store
        .catalog_import_csv(
            "id,name,unit_price,currency,barcode\na,A,1,TRY,4006381333931\nb,B,2,TRY,036000291452\n"
                .as_bytes(),
        )
        .unwrap();
    // A price update from a file without barcodes leaves them alone.
    store
        .catalog_import_csv("id,name,unit_price,currency\na,A,3,TRY\nb,B,4,TRY\n".as_bytes())
        .unwrap();
    assert_eq!(
        barcodes(&store),
        [
            ("a".into(), Some("4006381333931".into())),
            ("b".into(), Some("036000291452".into()))
        ]
    );
    // A file that swaps the two imports (the unique index is not tripped mid-way) ...
    let swapped = store
        .catalog_import_csv(
            "id,name,unit_price,currency,barcode\na,A,1,TRY,036000291452\nb,B,2,TRY,4006381333931\n"
                .as_bytes(),
        )
        .unwrap();
    assert!(swapped.errors.is_empty(), "{:?}", swapped.errors);
    assert_eq!(
        barcodes(&store),
        [
            ("a".into(), Some("036000291452".into())),
            ("b".into(), Some("4006381333931".into()))
        ]
    );
    // ... one that gives `c` the barcode of `a` takes it from `a`, and an empty cell clears.
    store
        .catalog_import_csv(
            "id,name,unit_price,currency,barcode\nc,C,1,TRY,036000291452\nb,B,2,TRY,\n".as_bytes(),
        )
        .unwrap();
    assert_eq!(
        barcodes(&store),
        [
            ("a".into(), None),
            ("b".into(), None),
            ("c".into(), Some("036000291452".into()))
        ]
    );
}

#[test]
fn a_barcode_set_by_hand_is_refused_when_another_item_has_it() {
    let mut store = Store::open_in_memory().unwrap();
    store
        .catalog_import_csv(
            "id,name,unit_price,currency\nv1,Çay,15,TRY\nv2,Simit,25,TRY\n".as_bytes(),
        )
        .unwrap();
    store
        .catalog_set_barcode("v1", Some(&code("5901234123457")))
        .unwrap();
    assert_eq!(
        store
            .catalog()
            .by_barcode(&code("5901234123457"))
            .unwrap()
            .map(|v| v.id),
        Some("v1".to_owned())
    );
    let err = store
        .catalog_set_barcode("v2", Some(&code("5901234123457")))
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::BarcodeTaken { id, name, .. } if id == "v1" && name == "Çay"),
        "{err}"
    );
    // Setting it again on the same item is fine; an unknown item is an error.
    store
        .catalog_set_barcode("v1", Some(&code("5901234123457")))
        .unwrap();
    assert!(matches!(
        store.catalog_set_barcode("v9", None),
        Err(StoreError::NoVariant(id)) if id == "v9"
    ));
    // Cleared, it is free for the other item.
    store.catalog_set_barcode("v1", None).unwrap();
    store
        .catalog_set_barcode("v2", Some(&code("5901234123457")))
        .unwrap();
    assert_eq!(
        store.catalog().map().unwrap()["v2"].barcode,
        Some(code("5901234123457"))
    );
}

#[test]
fn quoted_fields_with_separators_and_line_breaks_import_and_later_lines_keep_their_numbers() {
    // Spreadsheets quote a name holding the separator or a line break; the line numbers of
    // the errors after it count the line break inside the quotes, as an editor shows them.
    let csv = "id;name;unit_price;currency\r\n\
               k1;\"Kazak; yün,\r\nkırmızı\";1250,50;TRY\r\n\
               k2;\"Atkı \"\"uzun\"\"\";99,90;TRY\r\n\
               k3;Bozuk;abc;TRY\r\n\
               \r\n\
               k4;\"Bere\nçift\nkat\";-1;TRY\r\n\
               k5;Eldiven;\"12,5\";TRY\r\n";
    let mut store = Store::open_in_memory().unwrap();
    let result = store.catalog_import_csv(csv.as_bytes()).unwrap();
    assert_eq!(result.imported, 3, "{:?}", result.errors);
    let errors: Vec<(usize, CsvProblem)> = result
        .errors
        .iter()
        .map(|e| (e.line, e.problem.clone()))
        .collect();
    assert_eq!(
        errors,
        [
            (
                5,
                CsvProblem::PriceNotPlain {
                    price: "abc".into()
                }
            ),
            (7, CsvProblem::PriceNotPositive { price: "-1".into() })
        ]
    );
    let mut list = store.catalog().list().unwrap();
    list.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(
        list,
        [
            variant("k1", "Kazak; yün,\r\nkırmızı", "1250.50", Currency::Try),
            variant("k2", "Atkı \"uzun\"", "99.90", Currency::Try),
            variant("k5", "Eldiven", "12.50", Currency::Try),
        ]
    );
}

#[test]
fn every_line_problem_of_an_import_reads_in_turkish_too() {
    let csv = "id;name;unit_price;currency;barcode\n\
               ;Kimliksiz;1;TRY;\n\
               a1;;1;TRY;\n\
               a2;Kalem;1;XYZ;\n\
               a3;Silgi;;TRY;\n\
               a4;Defter;1.250;TRY;\n\
               a5;Cetvel;1,255;TRY;\n\
               a6;Boya;-3;TRY;\n\
               a7;Kağıt;abc;TRY;\n\
               a8;Makas;12,5;JPY;\n\
               a9;Zarf;1;TRY;36000291452\n\
               b1;Bant;1;TRY;4006381333931\n\
               b2;Tutkal;1;TRY;4006381333931\n\
               b1;Bant;1;TRY;\n\
               b3;Kısa;1\n\
               b4;\"Açık;1;TRY;\n";
    let store = Store::open_in_memory().unwrap();
    let parsed = store.catalog_preview_csv(csv.as_bytes()).unwrap();
    let turkish: Vec<(usize, String)> = parsed
        .errors
        .iter()
        .map(|e| (e.line, e.message(Lang::Tr)))
        .collect();
    let want = [
        (2, "ürün kimliği (id) boş"),
        (3, "`a1` ürününün adı boş"),
        (
            4,
            "para birimi `XYZ` şunlardan biri değil: TRY, USD, EUR, GBP, JPY, CHF, RUB, AZN",
        ),
        (5, "birim fiyat boş"),
        (
            6,
            "birim fiyat `1.250` belirsiz (binlik ayraç mı, ondalık mı?): noktasız ya da ondalık virgülle yazın",
        ),
        (
            7,
            "birim fiyat `1,255`, TRY için izin verilenden (2) fazla ondalık hane içeriyor",
        ),
        (8, "birim fiyat `-3` 0'dan büyük olmalı"),
        (9, "birim fiyat `abc` düz bir ondalık sayı değil"),
        (
            10,
            "birim fiyat `12,5`, JPY için izin verilenden (0) fazla ondalık hane içeriyor",
        ),
        (
            11,
            "barkod `36000291452`: 11 haneli; barkod 8, 12, 13 ya da 14 hanelidir (mağazanın kendi kodları 4–7 hane) (bir hesap tablosu baştaki sıfırları silmiş olabilir: sütunu metin olarak tutun)",
        ),
        (
            13,
            "barkod `4006381333931` yeniden geçiyor (ilk kez 12. satırda)",
        ),
        (14, "id `b1` yeniden geçiyor (ilk kez 12. satırda)"),
        (15, "4 sütun bekleniyordu, 3 sütun var"),
        (16, "tırnak içindeki bir alan kapatılmamış"),
    ];
    let want: Vec<(usize, String)> = want.iter().map(|(l, m)| (*l, (*m).to_owned())).collect();
    assert_eq!(turkish, want);
    // The English side of the same lines differs from the Turkish one on every line.
    for e in &parsed.errors {
        assert_ne!(e.message(Lang::En), e.message(Lang::Tr), "line {}", e.line);
    }
}

/// A catalog file of `len` bytes that is a valid CSV: one variant, then blank lines.
fn catalog_file_of(dir: &std::path::Path, len: u64) -> std::path::PathBuf {
    let path = dir.join(format!("catalog-{len}.csv"));
    let head = "id,name,unit_price,currency\nv-big,Kazak,10,TRY\n";
    let mut text = head.as_bytes().to_vec();
    text.resize(usize::try_from(len).unwrap(), b'\n');
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_catalog_file_is_read_up_to_its_limit_and_no_further() {
    assert_eq!(CATALOG_FILE_LIMIT, 16 * 1024 * 1024);
    // An endless file stops at the limit, with a sentence naming the file and the limit.
    let err = read_catalog_file(std::path::Path::new("/dev/zero")).unwrap_err();
    let StoreError::Csv(problem) = &err else {
        panic!("{err}");
    };
    assert_eq!(
        problem,
        &CsvFileProblem::TooLarge {
            file: Some("/dev/zero".into())
        }
    );
    assert_eq!(
        problem.message(Lang::En),
        "/dev/zero is larger than 16 MiB, the most a catalog file may hold (split it into smaller files)"
    );
    assert_eq!(
        problem.message(Lang::Tr),
        "/dev/zero dosyası 16 MiB'tan büyük; bir katalog dosyası en çok bu kadar olabilir (dosyayı bölün)"
    );
    // A real file one byte over is refused; one at the limit is read whole.
    let dir = tempfile::tempdir().unwrap();
    let over = catalog_file_of(dir.path(), CATALOG_FILE_LIMIT + 1);
    let err = read_catalog_file(&over).unwrap_err();
    assert!(
        matches!(&err, StoreError::Csv(CsvFileProblem::TooLarge { file: Some(f) }) if *f == over.display().to_string()),
        "{err}"
    );
    let at = catalog_file_of(dir.path(), CATALOG_FILE_LIMIT);
    let bytes = read_catalog_file(&at).unwrap();
    assert_eq!(bytes.len() as u64, CATALOG_FILE_LIMIT);
    // A reader handed to the store directly has the same limit.
    let mut store = Store::open_in_memory().unwrap();
    let err = store
        .catalog_import_csv(std::io::Read::take(
            std::io::repeat(b'\n'),
            CATALOG_FILE_LIMIT + 1,
        ))
        .unwrap_err();
    assert!(
        matches!(
            &err,
            StoreError::Csv(CsvFileProblem::TooLarge { file: None })
        ),
        "{err}"
    );
    assert!(store.catalog().list().unwrap().is_empty());
    // A missing file names itself.
    let err = read_catalog_file(&dir.path().join("missing.csv")).unwrap_err();
    assert!(err.to_string().contains("missing.csv"), "{err}");
}

#[test]
fn catalog_import_refuses_a_file_over_the_limit_and_imports_nothing() {
    let cli = crate::support::cli::Cli::new();
    let dir = tempfile::tempdir().unwrap();
    let over = catalog_file_of(dir.path(), CATALOG_FILE_LIMIT + 1);
    for file in [over.to_str().unwrap(), "/dev/zero"] {
        let out = cli.run(&["catalog", "import", file]);
        assert_ne!(out.code, 0, "{out:?}");
        assert!(
            out.stderr
                .contains(&format!("{file} is larger than 16 MiB")),
            "{out:?}"
        );
        let list = cli.run(&["catalog", "list", "--json"]);
        assert_eq!(list.code, 0, "{list:?}");
        assert_eq!(list.json(), serde_json::json!([]), "nothing imported");
    }
}

/// The server's variant is the price authority: in the app a manager edits its name shown and
/// its barcode, never its price or currency (by an edit, or by the edit a joined desk sends);
/// items the shop adds are its own, with an `own:` id, edited and removed freely. Each change
/// is audited.
#[test]
fn own_items_are_added_edited_and_removed_and_a_variants_price_never_changes_by_an_edit() {
    let mut store = Store::open_in_memory().unwrap();
    store
        .catalog_import_csv("id,name,unit_price,currency\nvar_simit,Simit,25.00,TRY\n".as_bytes())
        .unwrap();
    let audited = |store: &Store| {
        store
            .audit()
            .list(&paydesk::store::AuditFilter::default())
            .unwrap()
            .into_iter()
            .filter(|r| r.action == paydesk::store::AuditAction::CatalogEdit.as_str())
            .count()
    };

    // A new item of the shop's own: an id of its own, never the server's.
    let mut tea = variant("", "Demlik çay", "70", Currency::Try);
    tea.barcode = Some(code("4006381333931"));
    let id = store.catalog_put_item(&tea).unwrap();
    assert!(id.starts_with(paydesk::domain::OWN_PREFIX), "{id}");
    let stored = store.catalog().map().unwrap()[&id].clone();
    assert!(stored.is_own());
    assert_eq!(stored.unit_price.to_string(), "70.00");
    assert_eq!(audited(&store), 1);
    // Its price is the shop's: it changes.
    let mut dearer = stored.clone();
    dearer.unit_price = "75.50".parse().unwrap();
    store.catalog_put_item(&dearer).unwrap();
    assert_eq!(
        store.catalog().map().unwrap()[&id].unit_price.to_string(),
        "75.50"
    );

    // The server's variant: a name shown and a barcode change…
    let mut simit = store.catalog().map().unwrap()["var_simit"].clone();
    simit.name = "Susamlı simit".into();
    simit.barcode = Some(code("8690000000012"));
    store.catalog_put_item(&simit).unwrap();
    let now = store.catalog().map().unwrap()["var_simit"].clone();
    assert_eq!(
        (now.name.as_str(), now.unit_price.to_string()),
        ("Susamlı simit", "25.00".to_owned())
    );
    // …its price and currency never, and the refused edit changes nothing.
    for (price, currency) in [("30.00", Currency::Try), ("25.00", Currency::Eur)] {
        let mut changed = now.clone();
        changed.name = "Renamed".into();
        changed.unit_price = price.parse().unwrap();
        changed.currency = currency;
        assert!(matches!(
            store.catalog_put_item(&changed),
            Err(StoreError::PriceFromServer(v)) if v == "var_simit"
        ));
        assert!(matches!(
            store.catalog_after_edit(&paydesk::store::CatalogEdit::Put(changed)),
            Err(StoreError::PriceFromServer(_))
        ));
    }
    assert_eq!(store.catalog().map().unwrap()["var_simit"], now);
    // An id the catalog does not have is no way in for a made-up variant.
    let made_up = variant("var_made_up", "Made up", "1", Currency::Try);
    assert!(matches!(
        store.catalog_put_item(&made_up),
        Err(StoreError::NoVariant(_))
    ));
    // Nameless or free: refused.
    assert!(matches!(
        store.catalog_put_item(&variant("", " ", "10", Currency::Try)),
        Err(StoreError::BadItem)
    ));
    assert!(matches!(
        store.catalog_put_item(&variant("", "Free", "0", Currency::Try)),
        Err(StoreError::BadItem)
    ));
    // A barcode another item has is refused, naming it.
    let mut clash = variant("", "Clash", "5", Currency::Try);
    clash.barcode = Some(code("8690000000012"));
    assert!(matches!(
        store.catalog_put_item(&clash),
        Err(StoreError::BarcodeTaken { id, .. }) if id == "var_simit"
    ));

    // What a joined desk would send: the catalog after the change, nothing written.
    let (_, after) = store
        .catalog_after_edit(&paydesk::store::CatalogEdit::Remove(id.clone()))
        .unwrap();
    assert!(after.iter().all(|v| v.id != id));
    assert!(store.catalog().map().unwrap().contains_key(&id));

    store.catalog_remove(&id).unwrap();
    assert!(!store.catalog().map().unwrap().contains_key(&id));
    assert!(matches!(
        store.catalog_remove(&id),
        Err(StoreError::NoVariant(_))
    ));
    assert_eq!(audited(&store), 4, "added, priced, renamed, removed");
}
