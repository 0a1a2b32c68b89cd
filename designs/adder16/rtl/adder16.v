// adder16: 16-bit carry-select adder built from four 4-bit blocks.
// Each block computes two ripple-carry results (carry-in 0 and carry-in 1);
// the real block carry-in, coming from the previous block, selects between them.
module adder16 (
    input  wire [15:0] a,
    input  wire [15:0] b,
    input  wire        cin,
    output reg  [15:0] sum,
    output reg         cout
);
    localparam NBLK = 4;
    localparam BW   = 4;

    integer   blk, i;
    reg       bc;          // carry into the current block
    reg       c0, c1;      // ripple carries assuming block carry-in 0 / 1
    reg [BW-1:0] s0, s1;   // block sums assuming block carry-in 0 / 1
    reg       p, g;

    always @* begin
        bc  = cin;
        sum = 16'd0;
        for (blk = 0; blk < NBLK; blk = blk + 1) begin
            c0 = 1'b0;
            c1 = 1'b1;
            s0 = {BW{1'b0}};
            s1 = {BW{1'b0}};
            for (i = 0; i < BW; i = i + 1) begin
                p     = a[blk*BW + i] ^ b[blk*BW + i];
                g     = a[blk*BW + i] & b[blk*BW + i];
                s0[i] = p ^ c0;
                s1[i] = p ^ c1;
                c0    = g | (p & c0);
                c1    = g | (p & c1);
            end
            sum[blk*BW +: BW] = bc ? s1 : s0;
            bc                = bc ? c1 : c0;
        end
        cout = bc;
    end
endmodule
