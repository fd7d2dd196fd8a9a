//! A solution to the exercise in `visible_gpus.rs`.

pub fn visible_gpus(setting: Option<&str>, machine_gpus: usize) -> Vec<usize> {
    let Some(list) = setting else {
        return (0..machine_gpus).collect();
    };
    list.split(',')
        .map_while(|entry| entry.parse::<usize>().ok().filter(|&g| g < machine_gpus))
        .collect()
}
