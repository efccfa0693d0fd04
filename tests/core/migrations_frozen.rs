//! A shipped migration step never changes: a shop or a desk file already past it will never
//! run it again, so a change would leave new and old installations with different schemas.
//! A change to the schema is a new step. Each step's SQL is held here to the SHA-256 it
//! shipped with; the source may build a step from shared pieces (so that two steps that
//! define the same function write its body once) as long as the text it makes is the same.

use sha2::{Digest, Sha256};

/// The SHA-256 of each step of the shop's schema (`shop::schema::MIGRATIONS`), in order.
const SHOP: &[&str] = &[
    "a35a0769da0f3f6fa7c6faf828473c228d7f68a6e95ea9800afe03a469908fe1",
    "0f15741c58ab9c230c6759db6ab124c8d497af0fff95a37d7eef1010735c76c6",
    "e29d2d905dfb3294ebc27aa6135bc7b18f73ed6a66ba995e6808e9e38d8f2d78",
    "51b8b1aae11b650dace0f7da5d46090e61cc9d90495dfba60a9a5e0d9cc12abc",
    "7bdf80e3702bdbccbdda455a7bc96ebddd3faa8d7bd734cf1ae61f05d0888268",
    "bb2cd5765adb9ac6c886c63702ca44126ae78e893fa0e4879fde0f94033f8fc0",
    "99b12d1c5ddd98c093c47caa393c0a8ed624b9b251c21d98cdba056ec7050173",
    "beb29b08132f305f991c34935ef1a23dec1b7b58fdcb106510eb9644ec0cc46e",
    "390a3c522df0836b21d678edf10e9e9ae7127972b618580e3bff2bf52f84e3af",
    "80caf4b094e75e17b9cc9e3b1d38ed0c9fd458111f3277e423c335eead879c65",
    "fe136335f83556d406119e43db3a8a08fa8294941b8864bf27b31c63f5e121bd",
    "62b08af90d8b1f17b9acbaf52a4446e45b7d5431fa7be204e4d00cdf0227754b",
    "0a51d37b166d2c7b1b9f74d695c8b665a7e76c077b5a55b04dc4f40dfb9a1e5a",
    "c2970e57e0630ac253d4644318b232da8af03655ba42fc4dc8cbb0e7bc26a58a",
    "07cbabdbd51dece71a01590dac538352f0b06c8a839a93f60a983726e9bc6bf6",
    "11b4b85d16425abff5da1010887627253a86627da08043bdedd9b63537c833e6",
    "87a4f0e598200cdd7da93301b0aa289d6ea32a03e485ddea30abe8a9ab5ad348",
    "1f193746043abed2601d8db8b1b8e851991cc0199d7e79635e8b57722062f1a0",
    "653156665dbabc9a2139e74375e40c56915e6f286eb287154189645f91d60fae",
    "734c26a2d81536cb04868310fa0be69b2c23dde5ff808e478a584abb7318d09a",
    "0b635c53da0d8366e9b5e4266e609fe3f9b9c5e34b32f77d9d87c4bdb11aec57",
    "54c5cf88c5bd3e9b52ef1eaa87b201bc82eaa6c3db860ef2ccdf9ed528425776",
    "e8e3a161730f0e2019cea9c5d8dbdbe075354953390714fee638f88c66f23700",
];

/// The SHA-256 of each step of a desk's data file (`store::migrations::MIGRATIONS`), in order.
const DESK: &[&str] = &[
    "8a933384a051372d2f5f55e030f6c2ce372aec485d7f15d33b9340f0e75d7d45",
    "9e2d71efee5af136206b7f4680fb178afdfdd665dfa425d1440f642a07987c63",
    "c1d02a7d701c947e40c88efff33cb2b889e171274badd480b968c8373ef2d1a1",
    "0670493ce59874b0af8c14db9af2f7c414ce335c53d52e78d2c6977d70fe95b7",
    "3986aa335996a9d401970c061ea2c2484fcf82b8016f11cb690ff7555578164c",
    "fd79adc7c127e48ac7cdf68aaee1a96e8d98bae94d47e8012116b4cf9dfe74a3",
    "6f88a1911363fdd44f2173bbd8a02432ea1242c457d4157a24dcf2da957ced48",
    "5a179c71937e26df10d33bc24c4c65b166fe83ee89f6c9d440006a1cabc63495",
    "47060ca0ebe0c9dc31cd2e0d8df7a6245b481f67adc626c8ef92c43bce9472ab",
    "6eb5d92da995f5a50419d1dcb7c72faf3a8e7165b9e3065928182ecb98bce4b1",
    "558c7bd35aca127d44ea753b1bcf8d837d12ea6286eeebf67d417d8307bed35a",
    "9aa5ef5310cef9cfccb35820be7405fc0c5f994bbee7f3323173cd65331e2bd5",
    "8d4dadf91d24bf8ba508a7445da34c49555aa373864c2a933e3886f32cb6162a",
    "6e732a4f8b2f27df5c6206426fab3c02cef7ca81766cf671f0274b7645520333",
    "a1b1ea8d011e859010bcf8b98df477ed95995b601d0cf979e2f73f10d9499729",
    "74cfaa382a5c51a036730af446c5638742fe2585dbc5aa9794c10c53b8701a96",
    "554755831dba4907b1e31d38d6893ad36ecaefbd9227b293958358d25c58bf43",
];

fn hashes(steps: &[&str]) -> Vec<String> {
    steps
        .iter()
        .map(|sql| hex::encode(Sha256::digest(sql.as_bytes())))
        .collect()
}

/// Fails naming each step whose text differs from what shipped; a new step is listed with
/// its hash so that it can be recorded above once it ships.
fn hold(what: &str, recorded: &[&str], steps: &[&str]) {
    let now = hashes(steps);
    let changed: Vec<String> = recorded
        .iter()
        .zip(&now)
        .enumerate()
        .filter(|(_, (was, is))| **was != is.as_str())
        .map(|(i, _)| format!("step {}", i + 1))
        .collect();
    assert!(
        changed.is_empty(),
        "{what}: shipped migration steps changed ({}): add a new step instead",
        changed.join(", ")
    );
    assert!(
        now.len() >= recorded.len(),
        "{what}: a shipped step was removed"
    );
    assert_eq!(
        now.len(),
        recorded.len(),
        "{what}: record the new steps' hashes: {:?}",
        &now[recorded.len()..]
    );
}

#[test]
fn the_shops_shipped_steps_are_unchanged() {
    hold("shop", SHOP, paydesk::shop::schema::MIGRATIONS);
}

#[test]
fn the_desk_files_shipped_steps_are_unchanged() {
    hold("desk file", DESK, paydesk::store::migrations::MIGRATIONS);
}
