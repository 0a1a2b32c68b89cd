// pattern_counter: counts occurrences of the symbol pattern C A C (hex) in a stream
// of 4-bit symbols, one symbol per cycle with valid = 1 (cycles with valid = 0 are
// skipped: they neither match nor break a partial match). Overlapping occurrences
// count: C A C A C holds two. The matcher keeps the longest pattern prefix that ends
// the stream: state 0 (none), 1 (C), 2 (C A); a C after C A completes the pattern
// (hit pulses) and leaves C as the new prefix. count (saturating at 15) counts the
// hits; clr zeroes it (a hit in the same cycle is not counted) without touching the
// matcher. nsym counts the valid symbols since reset up to 4; early pulses with hit
// when the pattern is the first three symbols after reset.
// Asynchronous active-low reset: matcher empty, count 0, nsym 0.
module pattern_counter (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       valid,
    input  wire [3:0] sym,
    input  wire       clr,
    output reg  [1:0] state,
    output reg  [3:0] count,
    output reg        hit,
    output reg        early,
    output wire       saturated
);
    localparam [3:0] P0 = 4'hC, P1 = 4'hA, P2 = 4'hC;
    localparam [1:0] S_NONE = 2'd0, S_C = 2'd1, S_CA = 2'd2;

    reg [2:0] nsym;

    // the matcher's next state and whether this symbol completes the pattern
    reg [1:0] next;
    reg       found;
    always @(*) begin
        found = 1'b0;
        case (state)
            S_C:     next = (sym == P1) ? S_CA : ((sym == P0) ? S_C : S_NONE);
            S_CA: begin
                found = (sym == P2);
                next  = found ? S_C : S_NONE;     // the final C starts the next occurrence
            end
            default: next = (sym == P0) ? S_C : S_NONE;
        endcase
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state <= S_NONE;
            count <= 4'd0;
            hit   <= 1'b0;
            early <= 1'b0;
            nsym  <= 3'd0;
        end else begin
            hit   <= valid && found;
            early <= valid && found && nsym == 3'd2;
            if (valid) begin
                state <= next;
                if (nsym != 3'd4)
                    nsym <= nsym + 3'd1;
            end
            if (clr)
                count <= 4'd0;
            else if (valid && found && count != 4'd15)
                count <= count + 4'd1;
        end
    end

    assign saturated = (count == 4'd15);
endmodule
