// rob4_squash: four-entry reorder buffer with out-of-order completion, in-order retire
// and squash of younger entries. alloc takes the tail entry (its tag is the entry
// index) unless the buffer is full or a squash happens in the same cycle (stall). A
// completion (cpl_valid, cpl_tag) marks a valid, not yet done entry done (cpl_ok); a
// free entry is a stray completion (cpl_bad), a done entry a duplicate (cpl_dup). kill
// with a good completion also squashes every entry younger than cpl_tag. The head
// entry retires (one per cycle) once done, as it was before the edge. ret_run counts
// consecutive retiring cycles (saturating at 4); head_wait counts the cycles the head
// has been valid and not done, saturating at 63. flush frees every entry at once,
// before anything else of that cycle (flush_lost: the entries it freed). Synchronous
// active-high reset.
module rob4_squash (
    input  wire       clk,
    input  wire       rst,
    input  wire       alloc,
    input  wire       cpl_valid,
    input  wire [1:0] cpl_tag,
    input  wire       kill,
    input  wire       flush,
    output reg  [2:0] count,
    output reg  [1:0] head,
    output reg  [1:0] tail,
    output reg        stall,
    output reg        ret_valid,
    output reg  [1:0] ret_tag,
    output reg        cpl_ok,
    output reg        cpl_bad,
    output reg        cpl_dup,
    output reg        squash,
    output reg  [1:0] squashed,
    output reg  [1:0] cpl_age,
    output reg        cpl_kill,
    output reg  [2:0] ret_run,
    output reg  [5:0] head_wait,
    output reg        flushed,
    output reg  [2:0] flush_lost,
    output wire       full,
    output wire       empty
);
    reg  [3:0] v, d;
    integer    i;

    wire [1:0] age    = cpl_tag - head;
    wire       retire = v[head] && d[head];
    wire       good   = cpl_valid && v[cpl_tag] && !d[cpl_tag];
    wire       sq     = good && kill;
    wire [2:0] younger = count - 3'd1 - {1'b0, age};
    wire       take   = alloc && count != 3'd4 && !sq;

    // an entry's place in age order (0: the head)
    function [1:0] off;
        input [1:0] idx;
        off = idx - head;
    endfunction

    always @(posedge clk) begin
        if (rst) begin
            v         <= 4'd0;
            d         <= 4'd0;
            count     <= 3'd0;
            head      <= 2'd0;
            tail      <= 2'd0;
            stall     <= 1'b0;
            ret_valid <= 1'b0;
            ret_tag   <= 2'd0;
            cpl_ok    <= 1'b0;
            cpl_bad   <= 1'b0;
            cpl_dup   <= 1'b0;
            squash    <= 1'b0;
            squashed  <= 2'd0;
            cpl_age   <= 2'd0;
            cpl_kill  <= 1'b0;
            ret_run   <= 3'd0;
            head_wait <= 6'd0;
            flushed   <= 1'b0;
            flush_lost <= 3'd0;
        end else if (flush) begin
            v         <= 4'd0;
            d         <= 4'd0;
            count     <= 3'd0;
            tail      <= head;
            stall     <= alloc;
            ret_valid <= 1'b0;
            cpl_ok    <= 1'b0;
            cpl_bad   <= 1'b0;
            cpl_dup   <= 1'b0;
            squash    <= 1'b0;
            ret_run   <= 3'd0;
            head_wait <= 6'd0;
            flushed   <= 1'b1;
            flush_lost <= count;
        end else begin
            flushed   <= 1'b0;
            stall     <= alloc && !take;
            ret_valid <= retire;
            cpl_ok    <= good;
            cpl_bad   <= cpl_valid && !v[cpl_tag];
            cpl_dup   <= cpl_valid && v[cpl_tag] && d[cpl_tag];
            squash    <= sq;
            if (good) begin
                cpl_age  <= age;
                cpl_kill <= kill;
            end
            if (sq)
                squashed <= younger[1:0];
            if (retire) begin
                ret_tag <= head;
                head    <= head + 2'd1;
                if (ret_run != 3'd4)
                    ret_run <= ret_run + 3'd1;
            end else
                ret_run <= 3'd0;
            if (v[head] && !d[head] && !(good && cpl_tag == head)) begin
                if (head_wait != 6'd63)
                    head_wait <= head_wait + 6'd1;
            end else
                head_wait <= 6'd0;
            for (i = 0; i < 4; i = i + 1) begin
                if (retire && head == i[1:0]) begin
                    v[i] <= 1'b0;
                    d[i] <= 1'b0;
                end else if (sq && off(i[1:0]) > age) begin
                    v[i] <= 1'b0;
                    d[i] <= 1'b0;
                end else if (good && cpl_tag == i[1:0])
                    d[i] <= 1'b1;
                else if (take && tail == i[1:0]) begin
                    v[i] <= 1'b1;
                    d[i] <= 1'b0;
                end
            end
            if (sq) begin
                tail  <= cpl_tag + 2'd1;
                count <= count - younger - {2'b00, retire};
            end else begin
                tail  <= take ? tail + 2'd1 : tail;
                count <= count + {2'b00, take} - {2'b00, retire};
            end
        end
    end

    assign full  = (count == 3'd4);
    assign empty = (count == 3'd0);
endmodule
