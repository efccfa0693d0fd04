//! Catalog CSV import and preview: the accepted formats (comma, semicolon with decimal comma,
//! quotes, BOM), per-line errors with their line numbers, exact prices, and that the preview
//! writes nothing.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed unwrap is a failed test with its location"
)]

use paydesk::domain::{CatalogLookup, CatalogVariant, Currency};
use paydesk::store::{CsvLineError, Separator, Store, StoreError};
use rust_decimal::Decimal;

fn variant(id: &str, name: &str, price: &str, currency: Currency) -> CatalogVariant {
    CatalogVariant {
        id: id.into(),
        name: name.into(),
        unit_price: price.parse::<Decimal>().unwrap(),
        currency,
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
    let list = store.catalog_list().unwrap();
    assert_eq!(
        list,
        [
            variant("v-2", "12\" pizza", "12.00", Currency::Usd),
            variant("v-1", "Kazak, yün", "1250.50", Currency::Try),
            variant("v-3", "Çay", "100", Currency::Jpy),
        ]
    );
    assert_eq!(list[1].unit_price.to_string(), "1250.50");
    let map = store.catalog_map().unwrap();
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
        store.catalog_list().unwrap().is_empty(),
        "the preview wrote nothing"
    );
    assert_eq!(
        store.catalog_import_csv(csv.as_bytes()).unwrap().imported,
        2
    );
    assert_eq!(store.catalog_list().unwrap().len(), 2);
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
    let expect = [
        (3, "the id is empty"),
        (4, "the name of `n-1` is empty"),
        (
            5,
            "the currency `XYZ` is not one of TRY, USD, EUR, GBP, JPY, CHF, RUB, AZN",
        ),
        (6, "more decimals than TRY allows (2)"),
        (7, "more decimals than JPY allows (0)"),
        (8, "must be greater than 0"),
        (9, "expected 4 columns, found 3"),
        (10, "a quoted field is not closed"),
    ];
    for (CsvLineError { line, message }, (want_line, want)) in result.errors.iter().zip(expect) {
        assert_eq!(*line, want_line);
        assert!(message.contains(want), "line {line}: {message}");
    }
    assert_eq!(
        store.catalog_list().unwrap(),
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
            message: "the id `v1` appears again (first on line 2)".into()
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
        store.catalog_list().unwrap(),
        [
            variant("v2", "Kept", "2.00", Currency::Try),
            variant("v1", "New", "5.50", Currency::Eur),
        ]
    );
}

#[test]
fn files_that_cannot_be_read_at_all_are_refused_whole() {
    let store = Store::open_in_memory().unwrap();
    let cases: [(&[u8], &str); 4] = [
        (b"", "the file is empty"),
        (b"\n\n", "the file is empty"),
        (
            b"id,title,price\nv1,x,1\n",
            "must name the columns id, name, unit_price, currency",
        ),
        (
            b"id,name,unit_price,currency\nv1,Kaz\xfdk,1,TRY\n",
            "not UTF-8",
        ),
    ];
    for (bytes, want) in cases {
        let err = store.catalog_preview_csv(bytes).unwrap_err();
        assert!(
            matches!(&err, StoreError::Csv(m) if m.contains(want)),
            "{want}: {err}"
        );
    }
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
    let errors: Vec<(usize, bool)> = result
        .errors
        .iter()
        .map(|e| (e.line, e.message.contains("unit price")))
        .collect();
    assert_eq!(errors, [(5, true), (7, true)]);
    let mut list = store.catalog_list().unwrap();
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
