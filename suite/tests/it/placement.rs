//! Where the suite puts its processes, and that it gives a caller its cores back.

use suite::placement::{Placement, SavedAffinity, allowed_cpus};

/// The suite pins the thread that runs it to the client cores; a caller that runs it in-process
/// (cargo xtask does, several times) must get every core back, or the next run would find one
/// core, pin nothing, and put server and client on it.
#[test]
fn a_saved_affinity_comes_back() {
    let all = allowed_cpus().unwrap();
    {
        let _restore = SavedAffinity::save().unwrap();
        match Placement::choose(None, None, false).unwrap() {
            Some(placement) => {
                placement.enter_client().unwrap();
                assert_eq!(allowed_cpus().unwrap(), placement.client_cpus);
                assert!(!placement.client_cpus.contains(&placement.server_cpus[0]));
            }
            // One core: nothing to place apart.
            None => assert_eq!(all.len(), 1),
        }
    }
    assert_eq!(allowed_cpus().unwrap(), all);
}
