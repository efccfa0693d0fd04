//! The store's catalogue of sentences, in Turkish and English: why a line of a catalog CSV file
//! could not be imported (`CsvProblem`), as a clause that follows `file.csv:7:` (lower case, no
//! full stop), and why a whole file could not (`CsvFileProblem`), as a clause after `CSV:`; and
//! what a sum that does not fit reads (`Total::OutOfRange`).
//!
//! Declared with [`crate::sentences!`] and listed in
//! `every_sentence` (in `tests/support/catalogues.rs`), so the language tests walk it.

crate::sentences! {
    /// A sentence of the store.
    pub enum StoreMessage {
    CsvUnreadable => "satır okunamadı: {detail}", "the line could not be read: {detail}";
    CsvQuoteNotClosed => "tırnak içindeki bir alan kapatılmamış", "a quoted field is not closed";
    CsvTextAfterQuote => "kapanan tırnaktan sonra metin var", "text after a closing quote";
    CsvColumns => "{expected} sütun bekleniyordu, {found} sütun var", "expected {expected} columns, found {found}";
    CsvEmptyId => "ürün kimliği (id) boş", "the id is empty";
    CsvEmptyName => "`{id}` ürününün adı boş", "the name of `{id}` is empty";
    CsvCurrency => "para birimi `{value}` şunlardan biri değil: {allowed}", "the currency `{value}` is not one of {allowed}";
    CsvPriceEmpty => "birim fiyat boş", "the unit price is empty";
    CsvPriceSeparators => "birim fiyat `{price}` düz bir ondalık sayı değil (1250.50 gibi yazın)", "the unit price `{price}` is not a plain decimal (write it like 1250.50)";
    CsvPriceNotPlain => "birim fiyat `{price}` düz bir ondalık sayı değil", "the unit price `{price}` is not a plain decimal";
    CsvPriceNotPositive => "birim fiyat `{price}` 0'dan büyük olmalı", "the unit price `{price}` must be greater than 0";
    CsvPriceAmbiguous => "birim fiyat `{price}` belirsiz (binlik ayraç mı, ondalık mı?): noktasız ya da ondalık virgülle yazın", "the unit price `{price}` is ambiguous (a thousands separator or decimals?): write it without the dot, or with a decimal comma";
    CsvPriceDecimals => "birim fiyat `{price}`, {currency} için izin verilenden ({max}) fazla ondalık hane içeriyor", "the unit price `{price}` has more decimals than {currency} allows ({max})";
    CsvPriceTooLarge => "birim fiyat `{price}` çok büyük", "the unit price `{price}` is too large";
    CsvBarcode => "barkod `{barcode}`: {reason}", "the barcode `{barcode}`: {reason}";
    CsvBarcodeZeros => "barkod `{barcode}`: {reason} (bir hesap tablosu baştaki sıfırları silmiş olabilir: sütunu metin olarak tutun)", "the barcode `{barcode}`: {reason} (a spreadsheet may have dropped its leading zeros: keep the column as text)";
    CsvDuplicateBarcode => "barkod `{barcode}` yeniden geçiyor (ilk kez {first}. satırda)", "the barcode `{barcode}` appears again (first on line {first})";
    // A sum of the report or of History's totals beyond what paydesk can add up (`Total`).
    TotalOutOfRange => "aralık dışı (toplanamayacak kadar büyük)", "out of range (too large to add up)";
    CsvDuplicateId => "id `{id}` yeniden geçiyor (ilk kez {first}. satırda)", "the id `{id}` appears again (first on line {first})";

    // Why a catalog CSV file cannot be imported at all (`CsvFileProblem`), after `CSV:`.
    CsvFileEmpty => "dosya boş; id,name,unit_price,currency başlığı gerekli", "the file is empty; it needs the header id,name,unit_price,currency";
    CsvFileTooLarge => "dosya {limit} MiB'tan büyük; bir katalog dosyası en çok bu kadar olabilir (dosyayı bölün)", "the file is larger than {limit} MiB, the most a catalog file may hold (split it into smaller files)";
    CsvFileTooLargeNamed => "{file} dosyası {limit} MiB'tan büyük; bir katalog dosyası en çok bu kadar olabilir (dosyayı bölün)", "{file} is larger than {limit} MiB, the most a catalog file may hold (split it into smaller files)";
    CsvFileNotUtf8 => "dosya UTF-8 metin değil; hesap tablosundan \"CSV UTF-8\" olarak kaydedin", "the file is not UTF-8 text; save it from the spreadsheet as \"CSV UTF-8\"";
    CsvFileHeader => "{line}. satır, başlık: {problem}", "line {line}: the header: {problem}";
    CsvFileColumns => "{line}. satır: başlık id, name, unit_price, currency sütunlarını içermeli; içindekiler: {found}", "line {line}: the header must name the columns id, name, unit_price, currency; it has: {found}";
    }
}
