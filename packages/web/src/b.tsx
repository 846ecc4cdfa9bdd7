export default function B() { return <p>b</p>; }
